package detect

import (
	"fmt"
	"strings"
)

// Parked says whether a homepage is a parked or for-sale domain page.
type Parked struct {
	Parked bool `json:"parked"`
	// Provider is the parking or marketplace service recognised, or "".
	Provider string   `json:"provider,omitempty"`
	Evidence []string `json:"evidence,omitempty"`
}

// parkingMarkers are strings of parking and domain-marketplace services as
// they appear in parked pages (script hosts, links, form targets). Short
// host names carry a leading "//" or "." so that dan.com does not match
// jordan.com.
var parkingMarkers = []struct{ marker, provider string }{
	{"sedoparking.com", "sedo"},
	{"//sedo.com/", "sedo"},
	{".sedo.com/", "sedo"},
	{"bodis.com", "bodis"},
	{"parkingcrew.net", "parkingcrew"},
	{"afternic.com", "afternic"},
	{"//dan.com/", "dan.com"},
	{".dan.com/", "dan.com"},
	{"hugedomains.com", "hugedomains"},
	{"parklogic.com", "parklogic"},
	{"above.com/marketplace", "above"},
	{"domainmarket.com", "domainmarket"},
	{"undeveloped.com", "undeveloped"},
	{"parked-content.godaddy.com", "godaddy"},
	{"img1.wsimg.com/parking-lander", "godaddy"},
}

// parkingHosts are registrable domains a parked name redirects to.
var parkingHosts = map[string]string{
	"sedo.com": "sedo", "sedoparking.com": "sedo", "bodis.com": "bodis", "parkingcrew.net": "parkingcrew",
	"afternic.com": "afternic", "dan.com": "dan.com", "hugedomains.com": "hugedomains",
	"undeveloped.com": "undeveloped", "domainmarket.com": "domainmarket", "above.com": "above",
}

// forSalePhrases in a title mark a domain on sale.
var forSalePhrases = []string{
	"is for sale", "domain for sale", "domain is for sale", "may be for sale", "buy this domain",
	"domain name is for sale", "this domain is parked", "parked domain", "parked free", "domain parking",
}

// DetectParked reports a parked or for-sale page: a parking service's
// markers or a for-sale title, on a page with no store markup (strong
// platform signals, Product JSON-LD, cart links or forms). The store-markup
// guard matters: a shop may link to a marketplace or sell domains itself.
// A final URL on a parking service's domain counts on its own.
func DetectParked(p *Page) Parked {
	var out Parked
	if p.URL != nil {
		if prov, ok := parkingHosts[RegistrableDomain(p.URL.Hostname())]; ok {
			out.Provider = prov
			out.Evidence = append(out.Evidence, "final URL on "+RegistrableDomain(p.URL.Hostname()))
			out.Parked = true
			return out
		}
	}
	for _, m := range parkingMarkers {
		// Host names in markup are lower case in practice; an exact search
		// is many times faster than a case-folding one on large pages.
		if contains(p.Body, m.marker) {
			if out.Provider == "" {
				out.Provider = m.provider
			}
			out.Evidence = append(out.Evidence, "page references "+m.marker)
			break
		}
	}
	title := strings.ToLower(p.Title)
	for _, ph := range forSalePhrases {
		if strings.Contains(title, ph) {
			out.Evidence = append(out.Evidence, fmt.Sprintf("title %q", p.Title))
			break
		}
	}
	if len(out.Evidence) == 0 {
		return Parked{}
	}
	if hasStoreMarkup(p, DetectPlatform(p), len(ExtractJSONLD(p).Products)) {
		return Parked{}
	}
	out.Evidence = append(out.Evidence, "no store markup")
	out.Parked = true
	return out
}

package svc100

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// svc-100.csv is the curated list of real stores for SVC-100 v1 (see
// svc-100.md), the default test set. These tests hold it to its curation
// rule.

var realHeader = []string{"id", "host", "name", "category", "platform", "source", "platform_source", "checked"}

// platformKinds are the values the platform column may take; "unknown"
// means no public source for the platform was found.
var platformKinds = map[string]bool{
	"Shopify": true, "BigCommerce": true, "WooCommerce": true,
	"Salesforce Commerce Cloud": true, "Adobe Commerce": true,
	"custom": true, "unknown": true,
}

// namedPublicPages are the hosts, other than a store's own, whose stored
// pages serve as a row's source or platform_source, each with its
// publisher. A source on any other host is refused, so a new one has to be
// named here (and in svc-100.md) on purpose.
var namedPublicPages = map[string]string{
	"letsmetrix.com":               "Letsmetrix blog",
	"resources.algolia.com":        "Algolia customer story",
	"www.parcelmonitor.com":        "Parcel Monitor retail case study",
	"www.tomorrowagency.com":       "Tomorrow agency case study",
	"raw.githubusercontent.com":    "public sample data file on GitHub",
	"www.computerweekly.com":       "Computer Weekly",
	"salesforce.com":               "Salesforce blog",
	"www.mensjournal.com":          "Men's Journal",
	"www.flagshippublishing.com":   "Nebraska Life magazine",
	"www.shopify.com":              "Shopify",
	"uschamber.com":                "U.S. Chamber of Commerce",
	"apify.com":                    "Apify actor example page",
	"chainstoreage.com":            "Chain Store Age",
	"limespot.com":                 "LimeSpot blog",
	"www.modernretail.co":          "Modern Retail",
	"aboutwayfair.com":             "Wayfair corporate site",
	"www.aboutwayfair.com":         "Wayfair corporate site",
	"nationaljeweler.com":          "National Jeweler",
	"www.embeddedfinanceindex.com": "Embedded Finance Index",
	"www.retailtouchpoints.com":    "Retail TouchPoints",
	"nrf.com":                      "National Retail Federation",
	"www.essentialretail.com":      "Essential Retail",
	"www.firstbridgedigital.com":   "First Bridge Digital blog",
	"thecurrent.media":             "The Current",
	"www.petproductnews.com":       "Pet Product News",
	"foundershut.com":              "FoundersHut case study",
}

var hostLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)

// validHost reports whether h is a bare public host name: lower case, no
// scheme, port, path or trailing dot, at least two labels, not a reserved
// test or example name.
func validHost(h string) error {
	if h == "" || len(h) > 253 {
		return fmt.Errorf("host %q: empty or too long", h)
	}
	if strings.ContainsAny(h, ":/?#@ ") || h != strings.ToLower(h) {
		return fmt.Errorf("host %q: not a bare lower-case host name", h)
	}
	labels := strings.Split(h, ".")
	if len(labels) < 2 {
		return fmt.Errorf("host %q: needs a domain and a TLD", h)
	}
	for _, l := range labels {
		if len(l) > 63 || !hostLabel.MatchString(l) {
			return fmt.Errorf("host %q: bad label %q", h, l)
		}
	}
	// RFC 2606 / RFC 6761 reserved names are never real stores.
	for _, tld := range []string{"test", "example", "invalid", "localhost", "local"} {
		if labels[len(labels)-1] == tld {
			return fmt.Errorf("host %q: reserved TLD .%s", h, tld)
		}
	}
	if strings.HasSuffix(h, "example.com") || strings.HasSuffix(h, "example.org") || strings.HasSuffix(h, "example.net") {
		return fmt.Errorf("host %q: reserved example domain", h)
	}
	return nil
}

func stripWWW(h string) string { return strings.TrimPrefix(h, "www.") }

// sourceURL checks one source URL: https, a host, no credentials. own
// reports whether it is on the store's own host.
func sourceURL(raw, storeHost string) (own bool, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return false, fmt.Errorf("source %q: %v", raw, err)
	}
	if u.Scheme != "https" || u.Host == "" || u.User != nil || u.Port() != "" {
		return false, fmt.Errorf("source %q: want an https URL with a host and no credentials or port", raw)
	}
	h := strings.ToLower(u.Hostname())
	if stripWWW(h) == stripWWW(storeHost) {
		return true, nil
	}
	if _, ok := namedPublicPages[h]; !ok {
		return false, fmt.Errorf("source %q: host %s is neither the store's (%s) nor a named public page", raw, h, storeHost)
	}
	return false, nil
}

// fixtureCategories are the categories of the fixture stand-ins, the
// eleven the real set must use.
func fixtureCategories() map[string]bool {
	cats := map[string]bool{}
	stand, err := Parse(standInBytes)
	if err != nil {
		panic(err)
	}
	for _, st := range stand {
		cats[st.Category] = true
	}
	return cats
}

// checkRealSet applies the curation rule of svc-100.md to a svc-100.csv
// and returns every violation.
func checkRealSet(b []byte, cats map[string]bool) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return []error{err}
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(realHeader, ",") {
		return []error{fmt.Errorf("header must be %s", strings.Join(realHeader, ","))}
	}
	rows := recs[1:]
	if len(rows) != Size {
		bad("%d rows, want %d", len(rows), Size)
	}
	hosts := map[string]int{}
	perCat := map[string]int{}
	kinds := map[string]bool{}
	var prev []string
	for i, r := range rows {
		line := i + 2
		id, host, name, cat, plat, src, psrc, checked := r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
		if id != ID(i+1) {
			bad("line %d: id %q, want %s", line, id, ID(i+1))
		}
		if err := validHost(host); err != nil {
			bad("line %d: %v", line, err)
		}
		if j, dup := hosts[stripWWW(host)]; dup {
			bad("line %d: host %s already on line %d", line, host, j)
		}
		hosts[stripWWW(host)] = line
		if strings.TrimSpace(name) == "" {
			bad("line %d: no name", line)
		}
		if !cats[cat] {
			bad("line %d: category %q is not one of svc-100.csv's", line, cat)
		}
		perCat[cat]++
		if prev != nil && (cat < prev[0] || cat == prev[0] && strings.ToLower(name) < strings.ToLower(prev[1])) {
			bad("line %d: %s/%s is out of order (category, then name)", line, cat, name)
		}
		prev = []string{cat, name}
		own, err := sourceURL(src, host)
		if err != nil {
			bad("line %d: %v", line, err)
		}
		switch checked {
		case "stored-copy":
		case "unverified":
			// An unverified row never cites a third-party page: only a
			// page that was seen may stand as evidence.
			if err == nil && !own {
				bad("line %d: unverified row cites a third-party source %s", line, src)
			}
		default:
			bad("line %d: checked %q, want stored-copy or unverified", line, checked)
		}
		if !platformKinds[plat] {
			bad("line %d: platform %q is not a known kind", line, plat)
		}
		if plat == "unknown" {
			if psrc != "" {
				bad("line %d: platform unknown but platform_source %s", line, psrc)
			}
		} else {
			kinds[plat] = true
			if psrc == "" {
				bad("line %d: platform %s without platform_source", line, plat)
			} else if _, err := sourceURL(psrc, host); err != nil {
				bad("line %d: platform_source: %v", line, err)
			}
		}
	}
	for c := range cats {
		if n := perCat[c]; n < 8 || n > 10 {
			bad("category %s has %d stores, want 8 to 10", c, n)
		}
	}
	if len(kinds) < 3 {
		bad("%d platform kinds with a source, want at least 3", len(kinds))
	}
	return errs
}

func readRealSet(t *testing.T) []byte {
	t.Helper()
	return RealCSV()
}

func TestRealSetFollowsRule(t *testing.T) {
	cats := fixtureCategories()
	if len(cats) != 11 {
		t.Fatalf("svc-100.csv has %d categories, the curation rule expects 11", len(cats))
	}
	b := readRealSet(t)
	for _, err := range checkRealSet(b, cats) {
		t.Error(err)
	}
	// The real set must not pass as the fixture stand-in.
	recs, _ := csv.NewReader(bytes.NewReader(b)).ReadAll()
	var stores []Store
	stored := 0
	for _, r := range recs[1:] {
		stores = append(stores, Store{ID: r[0], Host: r[1], Name: r[2], Category: r[3]})
		if r[7] == "stored-copy" {
			stored++
		}
	}
	if standIn(stores) {
		t.Error("svc-100.csv is reported as the fixture stand-in")
	}
	// Its first four columns are a valid svc-100.csv.
	four, err := Encode(stores)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(four); err != nil {
		t.Errorf("the id,host,name,category columns do not parse as a test set: %v", err)
	}
	t.Logf("%d of %d rows cite a stored copy", stored, len(stores))
}

// swapRows exchanges the contents of two rows but keeps their ids, so only
// the order of the stores changes.
func swapRows(file, a, b string) string {
	ia, ra, _ := strings.Cut(a, ",")
	ib, rb, _ := strings.Cut(b, ",")
	file = strings.Replace(file, a, "\x00", 1)
	file = strings.Replace(file, b, ib+","+ra, 1)
	return strings.Replace(file, "\x00", ia+","+rb, 1)
}

// TestRealSetRuleRefuses: each mutation breaks one clause of the rule, and
// the checker must say so.
func TestRealSetRuleRefuses(t *testing.T) {
	cats := fixtureCategories()
	good := string(readRealSet(t))
	lines := strings.Split(good, "\r\n")
	row := func(n int) []string { return strings.Split(lines[n], ",") } // rows 1..: no quoted commas in the ones used
	first := row(1)
	second := row(2)
	swap := func(old, new string) string { return strings.Replace(good, old, new, 1) }
	for name, in := range map[string]string{
		"scheme in host":      swap(","+first[1]+",", ",https://"+first[1]+","),
		"path in host":        swap(","+first[1]+",", ","+first[1]+"/shop,"),
		"test host":           swap(","+first[1]+",", ",alo.test,"),
		"upper-case host":     swap(","+first[1]+",", ","+strings.ToUpper(first[1])+","),
		"duplicate host":      swap(","+second[1]+",", ","+first[1]+","),
		"www duplicate":       swap(","+second[1]+",", ","+stripWWW(first[1])+","),
		"unknown category":    swap(","+first[3]+",", ",toys,"),
		"http source":         swap("https://"+first[1]+"/", "http://"+first[1]+"/"),
		"unnamed source host": swap("https://"+first[1]+"/", "https://blog.invalid-source.com/"+first[1]),
		"third party unverified": swap(
			"https://"+first[1]+"/,,unverified", "https://www.shopify.com/x,,unverified"),
		"platform without source": swap(first[1]+","+first[2]+","+first[3]+",unknown", first[1]+","+first[2]+","+first[3]+",Shopify"),
		"made-up platform":        swap(first[1]+","+first[2]+","+first[3]+",unknown", first[1]+","+first[2]+","+first[3]+",Magic"),
		"bad checked":             swap(",unverified\r\n", ",checked\r\n"),
		"wrong id":                swap("svc100-v1-002", "svc100-v1-003"),
		"missing row":             strings.Replace(good, lines[1]+"\r\n", "", 1),
		"out of order":            swapRows(good, lines[1], lines[2]),
		"bad header":              swap("checked", "seen"),
	} {
		if in == good {
			t.Fatalf("%s: mutation did not change the file", name)
		}
		if errs := checkRealSet([]byte(in), cats); len(errs) == 0 {
			t.Errorf("%s: the rule accepted it", name)
		} else {
			t.Logf("%s: %v", name, errs[0])
		}
	}
	// Fewer than three platform kinds.
	one := good
	for _, k := range []string{"Salesforce Commerce Cloud", "Adobe Commerce", "custom"} {
		one = strings.ReplaceAll(one, ","+k+",", ",Shopify,")
	}
	if errs := checkRealSet([]byte(one), cats); len(errs) == 0 {
		t.Error("a set with one platform kind was accepted")
	}
}

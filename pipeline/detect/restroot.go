package detect

import (
	"net/url"
	"strings"
)

// WordPressAPIRel is the link relation by which WordPress announces its
// REST API root on every page: the header
//
//	Link: <https://host/wp-json/>; rel="https://api.w.org/"
//
// from rest_output_link_header() and the head element
//
//	<link rel="https://api.w.org/" href="https://host/wp-json/" />
//
// from rest_output_link_wp_head() (WordPress wp-includes/rest-api.php).
// The root is get_rest_url(): home_url('/wp-json/') with pretty
// permalinks, home_url('/index.php/wp-json/') with PATHINFO permalinks,
// and without pretty permalinks home_url('/index.php') with the query
// rest_route=/ (https://host/index.php?rest_route=/; some filters and
// hosts drop the index.php).
const WordPressAPIRel = "https://api.w.org/"

// maxRESTRoots bounds the roots returned: a page announces one.
const maxRESTRoots = 4

// RESTAPIRoots returns the WordPress REST API roots a page announces, from
// its Link headers first, then its <link> elements: absolute, same-site
// (the page's host or its registrable domain), without duplicates. A root
// on another site is dropped: the store's catalog is the store's.
func RESTAPIRoots(p *Page) []*url.URL {
	if p == nil || p.URL == nil {
		return nil
	}
	var hrefs []string
	for _, v := range p.Header.Values("Link") {
		for _, l := range parseLinkHeader(v) {
			if hasRel(l.rel, WordPressAPIRel) {
				hrefs = append(hrefs, l.href)
			}
		}
	}
	for _, l := range p.doc.links {
		if hasRel(l.rel, WordPressAPIRel) {
			hrefs = append(hrefs, l.href)
		}
	}
	pageHost := strings.ToLower(p.URL.Hostname())
	site := RegistrableDomain(pageHost)
	seen := map[string]bool{}
	var out []*url.URL
	for _, h := range hrefs {
		if len(out) >= maxRESTRoots {
			break
		}
		u := resolve(p.doc.base, h)
		if u == nil {
			continue
		}
		if host := strings.ToLower(u.Hostname()); host != pageHost && (site == "" || RegistrableDomain(host) != site) {
			continue
		}
		if s := u.String(); !seen[s] {
			seen[s] = true
			out = append(out, u)
		}
	}
	return out
}

// RESTRoute returns the URL of route (a REST route such as
// "/wc/store/v1/products") under a REST API root, as WordPress's rest_url()
// builds it: appended to the rest_route query of a query-form root
// (https://host/?rest_route=/ gives ?rest_route=/wc/store/v1/products, the
// root's other query parameters kept), else to the root's path
// (https://host/wp-json/ gives /wp-json/wc/store/v1/products).
func RESTRoute(root *url.URL, route string) *url.URL {
	if root == nil {
		return nil
	}
	u := *root
	u.Fragment, u.RawFragment = "", ""
	route = "/" + strings.TrimLeft(route, "/")
	if q, err := url.ParseQuery(u.RawQuery); err == nil && q.Has("rest_route") {
		val := strings.TrimRight(q.Get("rest_route"), "/") + route
		enc := strings.ReplaceAll(url.QueryEscape(val), "%2F", "/")
		parts := strings.Split(u.RawQuery, "&")
		var kept []string
		done := false
		for _, part := range parts {
			k, _, _ := strings.Cut(part, "=")
			if dk, err := url.QueryUnescape(k); err == nil && dk == "rest_route" {
				if !done {
					kept = append(kept, "rest_route="+enc)
					done = true
				}
				continue
			}
			kept = append(kept, part)
		}
		u.RawQuery = strings.Join(kept, "&")
		return &u
	}
	u.Path = strings.TrimRight(u.Path, "/") + route
	u.RawPath = ""
	return &u
}

// linkValue is one link-value of an RFC 8288 Link header.
type linkValue struct{ href, rel string }

// parseLinkHeader reads the link-values of one Link header value:
// `<uri>; rel="a b"; type="..."`, several separated by commas. It is
// lenient as browsers are: an unquoted rel and stray spaces are read, a
// malformed link-value is skipped.
func parseLinkHeader(v string) []linkValue {
	var out []linkValue
	for len(out) < 32 {
		i := strings.IndexByte(v, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(v[i:], '>')
		if j < 0 {
			break
		}
		l := linkValue{href: strings.TrimSpace(v[i+1 : i+j])}
		v = v[i+j+1:]
		// Parameters run to the next comma outside a quoted string.
		end, quoted := len(v), false
		for k := 0; k < len(v); k++ {
			switch c := v[k]; {
			case c == '"':
				quoted = !quoted
			case c == '\\' && quoted:
				k++
			case c == ',' && !quoted:
				end = k
			}
			if end != len(v) {
				break
			}
		}
		for _, param := range strings.Split(v[:end], ";") {
			name, val, ok := strings.Cut(param, "=")
			if ok && strings.EqualFold(strings.TrimSpace(name), "rel") {
				l.rel = strings.ToLower(strings.Trim(strings.TrimSpace(val), `"`))
			}
		}
		out = append(out, l)
		v = v[end:]
	}
	return out
}

// hasRel reports whether a rel list (space-separated, lower case) holds rel.
func hasRel(list, rel string) bool {
	for _, r := range strings.Fields(list) {
		if r == rel {
			return true
		}
	}
	return false
}

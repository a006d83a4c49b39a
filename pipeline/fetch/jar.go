package fetch

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/net/publicsuffix"
)

// Bounds of a session's cookie jar. Browsers keep about 4 KiB per cookie
// (RFC 6265 section 6.1 asks for at least that) and some 50 per domain; a
// store's gates set a handful. What is over the bounds is dropped, as a
// browser drops it, rather than failing the request.
const (
	maxJarCookies     = 64
	maxCookieBytes    = 4096      // name + value of one cookie
	maxJarCookieBytes = 64 * 1024 // name + value of every cookie kept
)

// WithCookies returns a client that shares c's connections and limits but
// keeps the cookies the sites it talks to set, in a jar of its own, and
// sends them back as a browser would: to the host that set them (or the
// Domain it named, never a public suffix), on the Path they name, Secure
// ones over https only, so never to another site. A store that sets a
// cookie on a redirect and redirects again until the cookie comes back (a
// region, currency or consent gate) is then reachable.
//
// Use one per check and drop it after: the jar is never shared between
// stores or checks. c itself keeps no cookies.
func (c *Client) WithCookies() *Client {
	jar, err := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
	if err != nil { // cookiejar.New never fails today
		return c
	}
	hc := *c.hc
	hc.Jar = &boundedJar{jar: jar, kept: map[string]int{}}
	return &Client{opts: c.opts, hc: &hc, docs: c.docs}
}

// boundedJar is a cookiejar.Jar that accepts at most maxJarCookies cookies
// of at most maxCookieBytes each, maxJarCookieBytes in all.
type boundedJar struct {
	jar *cookiejar.Jar

	mu    sync.Mutex
	kept  map[string]int // host|domain|path|name → size, of cookies accepted
	total int
}

func (j *boundedJar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	host := strings.ToLower(u.Hostname())
	j.mu.Lock()
	defer j.mu.Unlock()
	var keep []*http.Cookie
	for _, ck := range cookies {
		size := len(ck.Name) + len(ck.Value)
		if size > maxCookieBytes {
			continue
		}
		// The key is coarser than the jar's own (it does not resolve the
		// Domain or default Path), so the count can only overstate.
		key := host + "|" + strings.ToLower(ck.Domain) + "|" + ck.Path + "|" + ck.Name
		old, seen := j.kept[key]
		if ck.MaxAge < 0 {
			if seen {
				j.total -= old
				delete(j.kept, key)
			}
			keep = append(keep, ck)
			continue
		}
		if !seen && len(j.kept) >= maxJarCookies || j.total-old+size > maxJarCookieBytes {
			continue
		}
		j.kept[key] = size
		j.total += size - old
		keep = append(keep, ck)
	}
	if len(keep) > 0 {
		j.jar.SetCookies(u, keep)
	}
}

func (j *boundedJar) Cookies(u *url.URL) []*http.Cookie { return j.jar.Cookies(u) }

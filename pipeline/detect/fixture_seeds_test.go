package detect

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"svc/fixtures"
)

// fixtureResponse is one page the fixture world serves.
type fixtureResponse struct {
	status int
	cookie string
	body   string
}

var (
	fixtureOnce  sync.Once
	fixturePages map[string][]fixtureResponse // path kind -> responses
)

// fixtureSeeds returns what the fixture world serves for every store at
// the homepage ("home"), /robots.txt ("robots"), its first product page
// ("product") and /products.json ("catalog"), so the fuzz targets start
// from the same pages the engine is tested on. The fixture server is used
// as a plain http.Handler: nothing is dialled.
func fixtureSeeds(tb testing.TB, kind string) []fixtureResponse {
	fixtureOnce.Do(func() {
		world := fixtures.Generate(1, fixtures.CoreCount)
		srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 1})
		if err != nil {
			tb.Fatalf("fixture server: %v", err)
		}
		defer srv.Close()
		fixturePages = map[string][]fixtureResponse{}
		get := func(host, path string) (fixtureResponse, bool) {
			req := httptest.NewRequest(http.MethodGet, "https://"+host+path, nil)
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			if rec.Body.Len() > 256<<10 { // oversized stores make poor seeds
				return fixtureResponse{}, false
			}
			return fixtureResponse{status: rec.Code, cookie: rec.Header().Get("Set-Cookie"), body: rec.Body.String()}, true
		}
		for _, st := range world.Stores {
			home, ok := get(st.Host, "/")
			if !ok {
				continue
			}
			fixturePages["home"] = append(fixturePages["home"], home)
			if r, ok := get(st.Host, "/robots.txt"); ok {
				fixturePages["robots"] = append(fixturePages["robots"], r)
			}
			if r, ok := get(st.Host, "/products.json"); ok {
				fixturePages["catalog"] = append(fixturePages["catalog"], r)
			}
			u, _ := url.Parse("https://" + st.Host + "/")
			if links := ProductLinks(NewPage(u, home.status, nil, []byte(home.body))); len(links) > 0 {
				pu, _ := url.Parse(links[0])
				if r, ok := get(st.Host, pu.Path); ok {
					fixturePages["product"] = append(fixturePages["product"], r)
				}
			}
		}
	})
	return fixturePages[kind]
}

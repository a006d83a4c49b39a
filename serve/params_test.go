package serve

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decoder erases a decoder's params type so one table holds them all.
func decoder[P any](d func(url.Values) (P, error)) func(url.Values) (any, error) {
	return func(v url.Values) (any, error) { return d(v) }
}

func TestDecoders(t *testing.T) {
	const (
		dirLimit   = `limit must be an integer from 1 to 50 (default 10), not `
		factsLimit = `limit must be a number of stores from 1 to 50, not `
		download   = "download must be 1 or true (a JSON attachment), or left out"
		format     = "format must be csv (or left out for JSON)"
		stores     = "stores must be 1 to include the 100-store grid"
	)
	directory, facts, leaderboard := decoder(decodeDirectory), decoder(decodeFacts), decoder(decodeLeaderboard)
	for _, tc := range []struct {
		name    string
		decode  func(url.Values) (any, error)
		query   string
		want    any
		wantErr string // the exact 400 message
	}{
		{"directory/empty", directory, "", DirectoryParams{}, ""},
		{"directory/all", directory, "category=running+shoes&q=trail&limit=50", DirectoryParams{Category: "running shoes", Q: "trail", Limit: 50}, ""},
		{"directory/limit-1", directory, "limit=1", DirectoryParams{Limit: 1}, ""},
		{"directory/empty-limit-is-default", directory, "limit=", DirectoryParams{}, ""},
		{"directory/first-value-wins", directory, "q=a&q=b&limit=3&limit=x", DirectoryParams{Q: "a", Limit: 3}, ""},
		// Values the read itself judges (length, category match) pass the decoder.
		{"directory/unknown-category-left-to-read", directory, "category=zzz", DirectoryParams{Category: "zzz"}, ""},
		{"directory/limit-0", directory, "limit=0", nil, dirLimit + `"0"`},
		{"directory/limit-51", directory, "limit=51", nil, dirLimit + `"51"`},
		{"directory/limit-negative", directory, "limit=-3", nil, dirLimit + `"-3"`},
		{"directory/limit-float", directory, "limit=2.5", nil, dirLimit + `"2.5"`},
		{"directory/limit-plus", directory, "limit=%2B5", DirectoryParams{Limit: 5}, ""}, // strconv.Atoi takes a sign, as before
		{"directory/limit-space", directory, "limit=+5", nil, dirLimit + `" 5"`},
		{"directory/limit-huge", directory, "limit=99999999999999999999", nil, dirLimit + `"99999999999999999999"`},
		{"directory/limit-quoted", directory, "limit=%22x", nil, dirLimit + `"\"x"`},

		{"facts/host", facts, "host=shop.example&slug=price-clarity", FactsParams{Host: "shop.example", Slug: "price-clarity"}, ""},
		{"facts/url", facts, "url=https%3A%2F%2Fshop.example%2F", FactsParams{URL: "https://shop.example/"}, ""},
		{"facts/category", facts, "category=beauty&limit=7&download=1", FactsParams{Category: "beauty", Limit: 7, Download: true}, ""},
		{"facts/download-true", facts, "download=true", FactsParams{Download: true}, ""},
		{"facts/download-0", facts, "download=0", FactsParams{}, ""},
		{"facts/download-false", facts, "download=false", FactsParams{}, ""},
		{"facts/download-yes", facts, "download=yes", nil, download},
		{"facts/download-TRUE", facts, "download=TRUE", nil, download},
		{"facts/limit-0", facts, "limit=0", nil, factsLimit + `"0"`},
		{"facts/limit-51", facts, "limit=51", nil, factsLimit + `"51"`},
		{"facts/limit-word", facts, "limit=ten", nil, factsLimit + `"ten"`},
		// limit is read before download, as the handler always did.
		{"facts/limit-before-download", facts, "limit=0&download=maybe", nil, factsLimit + `"0"`},

		{"leaderboard/default", leaderboard, "", LeaderboardParams{}, ""},
		{"leaderboard/json", leaderboard, "format=json&stores=0", LeaderboardParams{}, ""},
		{"leaderboard/csv-grid", leaderboard, "format=csv&stores=1", LeaderboardParams{CSV: true, Stores: true}, ""},
		{"leaderboard/grid-true", leaderboard, "stores=true", LeaderboardParams{Stores: true}, ""},
		{"leaderboard/format-xml", leaderboard, "format=xml", nil, format},
		{"leaderboard/format-CSV", leaderboard, "format=CSV", nil, format},
		{"leaderboard/stores-2", leaderboard, "stores=2", nil, stores},
		{"leaderboard/format-before-stores", leaderboard, "format=x&stores=x", nil, format},

		{"product-data/host", decoder(decodeProductData), "host=shop.example&url=ignored", ProductDataParams{Host: "shop.example"}, ""},
		{"precheck/url", decoder(decodePrecheck), "url=https%3A%2F%2Fshop.example%2Fp%2F1", PrecheckParams{URL: "https://shop.example/p/1"}, ""},
		{"check/url", decoder(decodeCheck), "url=shop.example", CheckParams{URL: "shop.example"}, ""},
		{"store/host", decoder(decodeStore), "host=shop.example", StoreParams{Host: "shop.example"}, ""},
		{"ask/all", decoder(decodeAsk), "url=u&brand=b&category=c&q=need", AskParams{URL: "u", Brand: "b", Category: "c", Q: "need"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.decode(v)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || !errors.Is(err, ErrInvalid) {
					t.Fatalf("error = %v, want invalid_request %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBadQueryAnswers pins the whole 400 of a query string that does not
// decode: status, content type and body, before any data is read (the
// server has no snapshot, so a read that ran would answer 503).
func TestBadQueryAnswers(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, tc := range []struct{ path, message string }{
		{"/api/agent-checkout/stores?limit=0", `limit must be an integer from 1 to 50 (default 10), not "0"`},
		{"/api/agent-checkout/stores?category=beauty&limit=abc", `limit must be an integer from 1 to 50 (default 10), not "abc"`},
		{"/api/agent-facts?host=shop.example&limit=51", `limit must be a number of stores from 1 to 50, not "51"`},
		{"/api/agent-facts?host=shop.example&download=yes", "download must be 1 or true (a JSON attachment), or left out"},
		{"/api/leaderboard?format=xml", "format must be csv (or left out for JSON)"},
		{"/api/leaderboard?stores=yes", "stores must be 1 to include the 100-store grid"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, body := ts.get(t, tc.path)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" && ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			var got ErrorBody
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			want := ErrorBody{Error: ErrorDetail{Code: "invalid_request", Message: tc.message}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("error body (-want +got):\n%s", diff)
			}
		})
	}
}

// TestToolArgsMatchQuery: a tool's arguments and its REST twin's query
// string naming the same inputs give the same params, so both surfaces
// ask the read the same question.
func TestToolArgsMatchQuery(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  any
		query any
	}{
		{"find_agent_ready_stores", directoryArgs(map[string]any{"category": "beauty", "q": "lipstick", "limit": 5.0}),
			must(decodeDirectory(url.Values{"category": {"beauty"}, "q": {"lipstick"}, "limit": {"5"}}))},
		{"find_agent_ready_stores/default", directoryArgs(map[string]any{}), must(decodeDirectory(url.Values{}))},
		{"get_agent_facts", factsArgs(map[string]any{"host": "shop.example", "slug": "price_clarity"}),
			must(decodeFacts(url.Values{"host": {"shop.example"}, "slug": {"price_clarity"}}))},
		{"get_agent_facts/url", factsArgs(map[string]any{"url": "https://shop.example/"}),
			must(decodeFacts(url.Values{"url": {"https://shop.example/"}}))},
		{"list_category_agent_facts", factsArgs(map[string]any{"category": "pets", "limit": 3.0}),
			must(decodeFacts(url.Values{"category": {"pets"}, "limit": {"3"}}))},
		{"list_category_agent_facts/default", factsArgs(map[string]any{"category": "pets"}),
			must(decodeFacts(url.Values{"category": {"pets"}}))},
		{"product_data_check", productDataArgs(map[string]any{"host": "shop.example"}),
			must(decodeProductData(url.Values{"host": {"shop.example"}}))},
		{"product_data_check/url", productDataArgs(map[string]any{"url": "shop.example"}),
			must(decodeProductData(url.Values{"host": {"shop.example"}}))},
		{"can_agent_checkout", liveCheckArgs(map[string]any{"url": "https://shop.example/"}),
			must(decodeCheck(url.Values{"url": {"https://shop.example/"}}))},
		{"precheck", precheckArgs(map[string]any{"url": "https://shop.example/"}),
			must(decodePrecheck(url.Values{"url": {"https://shop.example/"}}))},
		{"store_card", storeArgs(map[string]any{"host": "shop.example"}), must(decodeStore(url.Values{"host": {"shop.example"}}))},
		{"ask_svc", askArgs(map[string]any{"url": "u", "brand": "b", "category": "c", "q": "q"}),
			must(decodeAsk(url.Values{"url": {"u"}, "brand": {"b"}, "category": {"c"}, "q": {"q"}}))},
		{"agent_leaderboard", leaderboardArgs(map[string]any{"include_stores": true}),
			must(decodeLeaderboard(url.Values{"stores": {"1"}}))},
		{"agent_leaderboard/default", leaderboardArgs(map[string]any{}), must(decodeLeaderboard(url.Values{}))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.query, tc.args); diff != "" {
				t.Errorf("params (-query +args):\n%s", diff)
			}
		})
	}
}

func must[P any](p P, err error) P {
	if err != nil {
		panic(err)
	}
	return p
}

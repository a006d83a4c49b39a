package serve

import (
	"net/url"
	"strconv"

	"svc/publish"
)

// Each read takes one params struct. Its REST handler fills it from the
// query string with decodeX, its MCP tool from the tool's arguments with
// xArgs (after checkArgs has held them to the tool's schema), and both
// pass it to the same Server method: the two surfaces read the same
// inputs and cannot drift apart. A decoder rejects only what the text of
// a query string can get wrong (a limit that is not a number, a flag that
// is not one); every rule on the values themselves lives in the read and
// holds for both surfaces. (pkgsite internal/api/params.go is the model.)

// DirectoryParams selects agent-ready stores: a category (slug or shopper
// words) or a product need (Q) picks the categories; Limit counts stores
// (0: the default).
type DirectoryParams struct {
	Category string
	Q        string
	Limit    int
}

// FactsParams selects agent facts: one store (Host, or a URL of it) or
// one category's stores, optionally one decision (Slug). Limit counts
// stores (0: the default): a category listing names at most Limit stores,
// each with all its measured facts; one store's answer is all its facts.
// Download (REST only) sends the answer as a JSON attachment.
type FactsParams struct {
	Host     string
	URL      string
	Category string
	Slug     string
	Limit    int
	Download bool
}

// ProductDataParams names the store whose product data is read.
type ProductDataParams struct {
	Host string
}

// CheckParams names the store to check live by a homepage or product URL.
type CheckParams struct {
	URL string
}

// PrecheckParams names the store to precheck by a homepage or product URL.
type PrecheckParams struct {
	URL string
}

// StoreParams names the store whose card is read.
type StoreParams struct {
	Host string
}

// AskParams is the Index question (spec 2.14): a store by url or brand
// (a host name), and/or a category or product need. The answer repeats it.
type AskParams struct {
	URL      string `json:"url,omitempty"`
	Brand    string `json:"brand,omitempty"`
	Category string `json:"category,omitempty"`
	Q        string `json:"q,omitempty"`
}

// LeaderboardParams picks one of the leaderboard's four documents: the
// board or, with Stores, its 100-store grid; as JSON or, with CSV, as CSV.
type LeaderboardParams struct {
	Stores bool
	CSV    bool
}

// path is the precomputed file that answers p.
func (p LeaderboardParams) path() string {
	switch {
	case p.Stores && p.CSV:
		return publish.LeaderboardStoresCSVPath
	case p.Stores:
		return publish.LeaderboardStoresPath
	case p.CSV:
		return publish.LeaderboardCSVPath
	}
	return publish.LeaderboardPath
}

func decodeDirectory(v url.Values) (DirectoryParams, error) {
	p := DirectoryParams{Category: v.Get("category"), Q: v.Get("q")}
	var err error
	p.Limit, err = queryLimit(v, directoryMaxLimit, func(s string) error {
		return fail(ErrInvalid, "limit must be an integer from 1 to %d (default %d), not %q", directoryMaxLimit, directoryDefaultLimit, s)
	})
	return p, err
}

func decodeFacts(v url.Values) (FactsParams, error) {
	p := FactsParams{Host: v.Get("host"), URL: v.Get("url"), Category: v.Get("category"), Slug: v.Get("slug")}
	var err error
	if p.Limit, err = queryLimit(v, factsMaxLimit, func(s string) error {
		return fail(ErrInvalid, "limit must be a number of stores from 1 to %d, not %q", factsMaxLimit, s)
	}); err != nil {
		return p, err
	}
	p.Download, err = queryFlag(v, "download", "download must be 1 or true (a JSON attachment), or left out")
	return p, err
}

func decodeProductData(v url.Values) (ProductDataParams, error) {
	return ProductDataParams{Host: v.Get("host")}, nil
}

func decodeCheck(v url.Values) (CheckParams, error) {
	return CheckParams{URL: v.Get("url")}, nil
}

func decodePrecheck(v url.Values) (PrecheckParams, error) {
	return PrecheckParams{URL: v.Get("url")}, nil
}

func decodeStore(v url.Values) (StoreParams, error) {
	return StoreParams{Host: v.Get("host")}, nil
}

func decodeAsk(v url.Values) (AskParams, error) {
	return AskParams{URL: v.Get("url"), Brand: v.Get("brand"), Category: v.Get("category"), Q: v.Get("q")}, nil
}

func decodeLeaderboard(v url.Values) (LeaderboardParams, error) {
	var p LeaderboardParams
	switch v.Get("format") {
	case "", "json":
	case "csv":
		p.CSV = true
	default:
		return p, fail(ErrInvalid, "format must be csv (or left out for JSON)")
	}
	var err error
	p.Stores, err = queryFlag(v, "stores", "stores must be 1 to include the 100-store grid")
	return p, err
}

// queryLimit reads limit: 0 when it is absent or empty, else an integer
// from 1 to max; bad is the error for any other text.
func queryLimit(v url.Values, max int, bad func(string) error) (int, error) {
	s := v.Get("limit")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > max {
		return 0, bad(s)
	}
	return n, nil
}

// queryFlag reads an on/off parameter: absent, empty, 0 or false is off;
// 1 or true is on; anything else is a 400 with msg.
func queryFlag(v url.Values, name, msg string) (bool, error) {
	switch v.Get(name) {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, fail(ErrInvalid, "%s", msg)
}

// The tools' arguments, as the same params. Each tool's schema allows
// only its own arguments, so tools that share a read (get_agent_facts and
// list_category_agent_facts; product_data_check and
// vendor_checkout_readiness) share its function too.

func directoryArgs(a map[string]any) DirectoryParams {
	return DirectoryParams{Category: argStr(a, "category"), Q: argStr(a, "q"), Limit: argInt(a, "limit", 0)}
}

func factsArgs(a map[string]any) FactsParams {
	return FactsParams{Host: argStr(a, "host"), URL: argStr(a, "url"), Category: argStr(a, "category"),
		Slug: argStr(a, "slug"), Limit: argInt(a, "limit", 0)}
}

// productDataArgs takes the store as host or, for product_data_check, url.
func productDataArgs(a map[string]any) ProductDataParams {
	return ProductDataParams{Host: firstArg(a, "host", "url")}
}

func liveCheckArgs(a map[string]any) CheckParams { return CheckParams{URL: argStr(a, "url")} }

func precheckArgs(a map[string]any) PrecheckParams { return PrecheckParams{URL: argStr(a, "url")} }

func storeArgs(a map[string]any) StoreParams { return StoreParams{Host: argStr(a, "host")} }

func askArgs(a map[string]any) AskParams {
	return AskParams{URL: argStr(a, "url"), Brand: argStr(a, "brand"), Category: argStr(a, "category"), Q: argStr(a, "q")}
}

// leaderboardArgs: the tool answers JSON only; include_stores adds the grid.
func leaderboardArgs(a map[string]any) LeaderboardParams {
	b, _ := a["include_stores"].(bool)
	return LeaderboardParams{Stores: b}
}

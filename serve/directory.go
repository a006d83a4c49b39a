package serve

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"svc/serve/readlayer"
)

// AgentReadyWindow is how recent a check must be for a store to count as
// agent-ready in the directory: its catalog found a product and its cart
// returned a checkout link in a check no older than this. The spec's two
// descriptions differ (REST thirty days, tool seven, 4.2.6); one window
// serves both, and it is thirty days because the directory is refreshed by
// a weekly crawl: a seven-day window would empty a category whenever one
// weekly run is late. The find_agent_ready_stores tool uses this constant.
const AgentReadyWindow = 30 * 24 * time.Hour

// Directory limits (spec 4): limit 1 to 50, default 10. category and q
// are a slug or a few shopper words: longer than maxNeedChars is a 400,
// so no answer or message ever repeats an unbounded text.
const (
	directoryDefaultLimit = 10
	directoryMaxLimit     = 50
	maxNeedChars          = 200
)

// DirectoryAnswer is GET /api/agent-checkout/stores (spec 2.5). No
// checkout links.
type DirectoryAnswer struct {
	Stores       []DirectoryStore `json:"stores"`
	Total        int              `json:"total"`
	Categories   []string         `json:"categories"`
	Note         string           `json:"note"`
	DirectoryURL string           `json:"directoryUrl"`
	WindowDays   int              `json:"windowDays"`
	Snapshot     string           `json:"snapshot"`
}

// DirectoryStore is one directory entry.
type DirectoryStore struct {
	Name      *string   `json:"name"`
	Host      string    `json:"host"`
	Category  *string   `json:"category"`
	Verdict   *string   `json:"verdict"`
	CheckedAt time.Time `json:"checkedAt"`
	SvcURL    string    `json:"svcUrl"`
}

// FindAgentReadyStores answers GET /api/agent-checkout/stores and the
// find_agent_ready_stores tool. category is a slug or shopper words
// ("running shoes"); q, a product need, picks the category when category
// is empty. Neither: every category. limit 0 means the default.
func (s *Server) FindAgentReadyStores(ctx context.Context, caller string, p DirectoryParams) (*DirectoryAnswer, error) {
	category, q, limit := p.Category, p.Q, p.Limit
	if limit == 0 {
		limit = directoryDefaultLimit
	}
	if limit < 1 || limit > directoryMaxLimit {
		return nil, fail(ErrInvalid, "limit must be an integer from 1 to %d (default %d)", directoryMaxLimit, directoryDefaultLimit)
	}
	for _, p := range []struct{ name, v string }{{"category", category}, {"q", q}} {
		if n := utf8.RuneCountInString(p.v); n > maxNeedChars {
			return nil, fail(ErrInvalid, "%s is %d characters long; the limit is %d: give a category slug or a few shopper words, such as \"running shoes\"",
				p.name, n, maxNeedChars)
		}
	}
	var cats []string
	switch {
	case strings.TrimSpace(category) != "":
		if cats = matchCategories(category); len(cats) == 0 {
			return nil, fail(ErrInvalid, "no matching category for %q: use one of %s, or shopper words such as \"running shoes\"",
				category, strings.Join(categorySlugs, ", "))
		}
	case strings.TrimSpace(q) != "":
		if cats = matchCategories(q); len(cats) == 0 {
			return nil, fail(ErrInvalid, "no matching category for the product need %q: the directory matches categories (%s), not inventory",
				q, strings.Join(categorySlugs, ", "))
		}
	}
	rl, err := s.readView()
	if err != nil {
		return nil, fail(ErrUnavailable, "the directory is unavailable: no published snapshot has been loaded yet")
	}
	defer rl.Release()
	if !rl.Serves(readlayer.ReadDirectory) {
		return nil, fail(ErrUnavailable, "the directory (store_answers) is not in the published snapshot %s", rl.Version())
	}
	if err := s.limits.take(caller, 1, quotaCheckoutReads, quotaSiteReads); err != nil {
		return nil, err
	}
	entries, total, err := rl.Directory(ctx, cats, s.now().Add(-AgentReadyWindow), limit)
	if err != nil {
		return nil, err
	}
	ans := &DirectoryAnswer{Stores: []DirectoryStore{}, Total: total, Categories: cats, WindowDays: int(AgentReadyWindow / (24 * time.Hour)),
		DirectoryURL: s.directoryLink(cats), Snapshot: rl.Version()}
	if len(cats) == 0 {
		ans.Categories = categorySlugs
	}
	for _, e := range entries {
		d := DirectoryStore{Name: e.Name, Host: e.Host, Category: e.Category, Verdict: e.Verdict, CheckedAt: e.CheckedAt,
			SvcURL: s.storeLink(e.Host)}
		if e.SvcURL != nil && *e.SvcURL != "" {
			d.SvcURL = *e.SvcURL
		}
		ans.Stores = append(ans.Stores, d)
	}
	ans.Note = fmt.Sprintf("Agent-ready stores: the catalog found a product and the cart returned a checkout link in a check "+
		"within the last %d days (one window for REST and the MCP tool). Category matching, not inventory search: q and shopper "+
		"words pick a category, they do not say a store stocks the product. A checkout link means checkout was reachable, not that a "+
		"purchase happened; no checkout link is returned. Stores from third-party lists, map-derived, campaign and opted-out sources "+
		"are not listed. The set is a curated sample.", ans.WindowDays)
	return ans, nil
}

func (s *Server) directory(w http.ResponseWriter, r *http.Request) error {
	return serveRead(s, w, r, decodeDirectory, s.FindAgentReadyStores, "no-store")
}

package serve

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"svc/pipeline/check"
	"svc/pipeline/fetch"
)

// AskAnswer is the Index answer: whether agents can reach checkout at the
// store, its score, both buy lanes, the rails, evidence receipts and the
// model read. Fields of a store are null when no store was named or known.
type AskAnswer struct {
	Question               AskParams        `json:"question"`
	Host                   *string          `json:"host"`
	Known                  bool             `json:"known"`
	CanAgentsReachCheckout *bool            `json:"can_agents_reach_checkout"`
	Score                  *int64           `json:"score"`
	Verdict                *string          `json:"verdict"`
	Buy                    *BuyLanes        `json:"buy"`
	AgentsCanBuy           *bool            `json:"agents_can_buy"`
	AgentRails             *AgentRails      `json:"agent_rails"`
	Evidence               []Receipt        `json:"evidence"`
	LLMRead                LLMRead          `json:"llm_read"`
	Rivals                 []string         `json:"rivals,omitempty"`
	Stores                 *DirectoryAnswer `json:"stores,omitempty"`
	CheckedAt              *time.Time       `json:"checkedAt"`
	ScanURL                *string          `json:"scan_url,omitempty"`
	StoreURL               *string          `json:"svcUrl,omitempty"`
	Note                   string           `json:"note"`
}

// AgentRails are the store's agent rails as the Index reports them.
type AgentRails struct {
	CheckoutWebMCP RailCheckoutWebMCP `json:"checkout_webmcp"`
	UCP            *string            `json:"ucp"`
	StorefrontMCP  *bool              `json:"storefront_mcp"`
	WebMCP         *bool              `json:"webmcp"`
	CartLink       *bool              `json:"cart_link"`
}

// RailCheckoutWebMCP is Checkout WebMCP: platform-only, detected null
// unless there is evidence, buyer approval required.
type RailCheckoutWebMCP struct {
	Status   *string  `json:"status"`
	Detected *bool    `json:"detected"`
	Tools    []string `json:"tools"`
	Reason   string   `json:"reason"`
}

// Receipt is one piece of evidence behind the answer: what was measured,
// its value, when, and where the saved data is.
type Receipt struct {
	Claim     string     `json:"claim"`
	Value     any        `json:"value"`
	CheckedAt *time.Time `json:"checkedAt"`
	Source    string     `json:"source"`
}

const askNote = "A reachable checkout is not a completed order: svc stops before payment. null means unmeasured. " +
	"Validation is not certification. Brand statements never change scores."

// llmCache keeps one model read per host a day, so the Index does not
// call the model on every request.
type llmCache struct {
	mu sync.Mutex
	m  map[string]cachedRead
}

type cachedRead struct {
	read LLMRead
	at   time.Time
}

// Ask answers the Index question; GET /api/ask and the ask_svc tool share it.
func (s *Server) Ask(ctx context.Context, caller string, q AskParams) (*AskAnswer, error) {
	if err := s.limits.perMinute(caller, "ask", 30); err != nil {
		return nil, err
	}
	if err := s.limits.take(caller, 1, quotaAsk); err != nil {
		return nil, err
	}
	ans := &AskAnswer{Question: q, Evidence: []Receipt{}, Note: askNote}
	host := ""
	for _, v := range []string{q.URL, q.Brand} {
		if strings.TrimSpace(v) == "" {
			continue
		}
		u, err := fetch.ParseURL(v)
		if err != nil {
			if v == q.URL {
				return nil, unsafeURL(err)
			}
			return nil, fail(ErrInvalid, "brand must be the store's host name (e.g. shop.example); name search is not supported")
		}
		host = strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		break
	}
	if q.Category != "" || q.Q != "" {
		st, err := s.FindAgentReadyStores(ctx, caller, DirectoryParams{Category: q.Category, Q: q.Q, Limit: 10})
		if err != nil {
			return nil, err
		}
		ans.Stores = st
	}
	if host == "" {
		if ans.Stores == nil {
			return nil, fail(ErrInvalid, "ask about a store (url or brand) or a need (category or q)")
		}
		ans.LLMRead = LLMRead{Status: LLMNotConfigured, Note: "No store was named: there is no model read of a store."}
		return ans, nil
	}
	ans.Host = &host
	card, err := s.StoreCard(ctx, caller, StoreParams{Host: host})
	if err != nil {
		return nil, err
	}
	if card == nil || !card.Known {
		scan := s.link("/api/agent-checkout?url=https://" + host + "/")
		ans.ScanURL = &scan
		ans.LLMRead = LLMRead{Status: LLMNotConfigured, Note: "The store is not in the directory: there is no saved data to check a model read against."}
		return ans, nil
	}
	ans.Known = true
	ans.Score, ans.Verdict, ans.Buy, ans.AgentsCanBuy, ans.CheckedAt = card.Score, card.Verdict, card.Buy, card.AgentsCanBuy, card.CheckedAt
	ans.CanAgentsReachCheckout = card.AgentsCanBuy
	link := s.storeLink(host)
	ans.StoreURL = &link
	// Each receipt cites where its value is saved: the snapshot's own
	// checks file (the version folder, which never changes), or, for a
	// host the snapshot does not have, the live check shown on its page.
	src := s.link("/data/" + card.Snapshot + "/checks.parquet")
	if card.CheckSource != nil && *card.CheckSource == "live_check" {
		src = s.storeLink(host)
	}
	if c := card.Checks; c != nil {
		rails := &AgentRails{UCP: c.UCPProfile.Status, StorefrontMCP: c.StorefrontMCP.Detected, WebMCP: c.WebMCP, CartLink: c.CartLink,
			CheckoutWebMCP: checkoutRail(c.CheckoutWebMCP)}
		ans.AgentRails = rails
		ans.Evidence = append(ans.Evidence, receipts("", c, card.CheckedAt, src)...)
	}
	// A live check newer than the snapshot adds its own receipts, with its
	// own time and source; the answer above stays the snapshot's.
	if lc := card.LiveCheck; lc != nil {
		at := lc.CheckedAt
		ans.Evidence = append(ans.Evidence, receipts("Newer live check: ", lc.Checks, &at, lc.ResultURL)...)
		ans.Note += " Receipts marked \"Newer live check\" come from a live plain-HTTP check made after the snapshot, at their own time; " +
			"they change no score, verdict or buy lane."
	}
	ans.LLMRead = s.modelRead(ctx, card)
	if ans.LLMRead.Status == LLMOK {
		ans.Rivals = ans.LLMRead.Rivals
	}
	return ans, nil
}

// receipts are the evidence of one check's signals.
func receipts(prefix string, c *CardChecks, at *time.Time, src string) []Receipt {
	out := []Receipt{}
	for _, r := range []struct {
		claim string
		v     any
	}{
		{"A catalog answered over plain HTTP", c.CatalogAnswered},
		{"A product was found in the catalog", c.ProductFound},
		{"The storefront cart returned a checkout link (boolean; the URL is never kept)", c.CartLink},
		{"UCP profile status", c.UCPProfile.Status},
		{"WebMCP tool in the server HTML", c.WebMCP},
		{"Storefront MCP endpoint", c.StorefrontMCP.Detected},
	} {
		out = append(out, Receipt{Claim: prefix + r.claim, Value: r.v, CheckedAt: at, Source: src})
	}
	return out
}

// checkoutRail fills the tools and reason of a saved Checkout WebMCP
// status: the snapshot's own where it has them (measured at the checkout
// page, or why not), else the words of the status.
func checkoutRail(c CardCheckoutWebMCP) RailCheckoutWebMCP {
	status, detected := c.Status, c.Detected
	r := RailCheckoutWebMCP{Status: status, Detected: detected, Tools: []string{}}
	if c.Reason != nil {
		if tools := stringList(c.Tools); tools != nil {
			r.Tools = tools
		}
		r.Reason = *c.Reason
		return r
	}
	st := ""
	if status != nil {
		st = *status
	}
	switch st {
	case "evidence":
		r.Tools = append(r.Tools, check.CheckoutTools...)
		r.Reason = "Evidence: the store's server HTML declares checkout WebMCP tools. Buyer approval is required before any order."
	case "inferred":
		r.Tools = append(r.Tools, check.CheckoutTools...)
		r.Reason = "Inferred from the platform: its hosted checkout registers these WebMCP tools at runtime; nothing on this store shows them from outside. Buyer approval is required."
	default:
		r.Reason = "Not measurable from outside: Checkout WebMCP runs inside a platform's hosted checkout, and nothing shows it for this store."
	}
	return r
}

// modelRead returns today's model read of the store, calling the model at
// most once a day per host.
func (s *Server) modelRead(ctx context.Context, card *StoreCard) LLMRead {
	if !s.cfg.LLM.Configured() {
		return readStore(ctx, s.cfg.LLM, storeEvidence{}, s.now())
	}
	s.llm.mu.Lock()
	if c, ok := s.llm.m[card.Host]; ok && s.now().Sub(c.at) < 24*time.Hour && c.read.Status == LLMOK {
		s.llm.mu.Unlock()
		return c.read
	}
	s.llm.mu.Unlock()
	ev := storeEvidence{Host: card.Host, Texts: map[string]string{}}
	if card.Name != nil {
		ev.Name = *card.Name
	}
	if card.Category != nil {
		ev.Category = *card.Category
	}
	if card.Platform != nil {
		ev.Texts["platform"] = *card.Platform
	}
	read := readStore(context.WithoutCancel(ctx), s.cfg.LLM, ev, s.now())
	s.llm.mu.Lock()
	if len(s.llm.m) > 100_000 {
		s.llm.m = map[string]cachedRead{}
	}
	s.llm.m[card.Host] = cachedRead{read: read, at: s.now()}
	s.llm.mu.Unlock()
	return read
}

func (s *Server) ask(w http.ResponseWriter, r *http.Request) error {
	return serveRead(s, w, r, decodeAsk, s.Ask, "no-store")
}

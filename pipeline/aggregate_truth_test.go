package pipeline

import (
	"slices"

	"svc/fixtures"
	"svc/publish"
)

// A second, independent implementation of the documented store_answers
// rules, over the fixture world's known answers (Store.Expect) instead of
// the crawl: the tests hold every published figure to it.

// truthRow is the store_answers row a correct pipeline gives one store.
type truthRow struct {
	Host, Name, Category, Source string
	Platform                     *string
	AgentsCanBuy                 *bool
	BuyAgentCatalog              *bool
	BuyBrowser                   *bool
	Score                        *int64
	CartLink                     *bool
	UCPValid                     *bool
	WebMCP                       *bool
	Blocked                      *bool
	Verdict                      string
	FixCode                      string
	CatalogAnswered              *bool
	ProductFound                 *bool
	StorefrontMCP                *bool
	UCPStatus                    string
	CheckoutWebMCPStatus         *string
	ScoreInputs                  int64
	Market                       *string
	UCPCheckoutLink              *bool
}

func bp(b bool) *bool { return &b }

// and3 is SQL's three-valued AND.
func and3(a, b *bool) *bool {
	switch {
	case a != nil && !*a, b != nil && !*b:
		return bp(false)
	case a != nil && b != nil:
		return bp(true)
	}
	return nil
}

func isT(b *bool) bool { return b != nil && *b }

// userAgentsAllowed: no user-initiated agent is disallowed at "/".
func userAgentsAllowed(e fixtures.Expect) *bool {
	for _, a := range []string{"ChatGPT-User", "Claude-User", "Perplexity-User"} {
		if e.Robots[a] == "disallowed" {
			return bp(false)
		}
	}
	return bp(true)
}

func ucpOK(status string) *bool {
	switch status {
	case "valid":
		return bp(true)
	case "invalid", "missing":
		return bp(false)
	}
	return nil
}

func productComplete(pd *fixtures.ProductData) *bool {
	if pd == nil {
		return nil
	}
	return bp(pd.Source != nil && pd.Name && pd.Price && pd.Currency && pd.Availability && pd.GTINOrSKU && pd.Image)
}

func policiesAll(p *fixtures.Policies) *bool {
	if p == nil {
		return nil
	}
	return bp(p.Returns && p.Shipping && p.Privacy && p.Terms)
}

// truthAnswer derives a store's row from its known answers and its browser
// lane (nil: no browser run covered it).
func truthAnswer(st *fixtures.Store, browser *bool) truthRow {
	return truthAnswerPath(st, browser, nil)
}

// truthAnswerPath is truthAnswer with how the UCP agent path ended at the
// store (nil: the path did not cover it).
func truthAnswerPath(st *fixtures.Store, browser *bool, path *UCPPathResult) truthRow {
	e := st.Expect
	r := truthRow{
		Host: st.Host, Name: st.Name, Category: st.Category, Source: st.Source,
		Platform: e.Platform, CartLink: e.CartLink, WebMCP: e.WebMCP, Blocked: e.BlockStatus.Blocked,
		FixCode: e.Fix.Code, CatalogAnswered: e.CatalogAnswered, ProductFound: e.ProductFound,
		StorefrontMCP: e.StorefrontMCP, UCPStatus: e.UCPProfile.Status, BuyBrowser: browser,
		UCPValid: ucpOK(e.UCPProfile.Status), Market: e.Market,
	}
	// The UCP checkout link: what the path saw when it decided, else the
	// crawl's profile when it has no UCP service to return one.
	switch {
	case path != nil && path.Outcome == "checkout_reached":
		r.UCPCheckoutLink = bp(true)
	case path != nil && (path.Outcome == "added_to_cart" || path.Outcome == "no_cart" && path.Reason != "ucp_profile_unreachable"):
		r.UCPCheckoutLink = bp(false)
	case e.Platform != nil && (e.UCPProfile.Status == "missing" || e.UCPProfile.Status == "invalid"):
		r.UCPCheckoutLink = bp(false)
	}
	if e.Platform != nil {
		s := e.CheckoutWebMCP.Status
		r.CheckoutWebMCPStatus = &s
	}
	r.BuyAgentCatalog = and3(e.CartLink, r.UCPValid)
	switch {
	case isT(r.BuyAgentCatalog) || isT(browser):
		r.AgentsCanBuy = bp(true)
	case r.BuyAgentCatalog != nil || browser != nil:
		r.AgentsCanBuy = bp(false)
	}

	// The score: documented weights over the measured signals only.
	switch {
	case isT(e.BlockStatus.Blocked):
		r.Score, r.ScoreInputs = new(int64), 1
	case e.Platform != nil:
		var held, measured int64
		for _, s := range []struct {
			w int64
			v *bool
		}{
			{25, e.CatalogAnswered}, {20, r.UCPValid}, {15, productComplete(e.ProductData)},
			{10, e.ProductFound}, {10, e.WebMCP}, {10, policiesAll(e.Policies)}, {10, userAgentsAllowed(e)},
		} {
			if s.v == nil {
				continue
			}
			measured += s.w
			r.ScoreInputs++
			if *s.v {
				held += s.w
			}
		}
		score := (200*held + measured) / (2 * measured)
		r.Score = &score
	}

	switch {
	case isT(r.AgentsCanBuy):
		r.Verdict = "agents_can_buy"
	case isT(e.BlockStatus.Blocked):
		r.Verdict = "blocked"
	case isT(e.Parked) || isT(e.RedirectsToOtherBrand):
		r.Verdict = "not_a_store"
	case e.Platform == nil:
		r.Verdict = "unreachable"
	case isT(e.CartLink):
		r.Verdict = "cart_without_valid_ucp"
	case isT(e.CatalogAnswered) && e.ProductFound == nil:
		r.Verdict = "catalog_throttled"
	case isT(e.ProductFound):
		r.Verdict = "catalog_only"
	default:
		r.Verdict = "no_agent_catalog"
	}
	return r
}

// truthCounts are the adoption counts of a group of truth rows.
func truthCounts(rows []truthRow) publish.AdoptionCounts {
	var c publish.AdoptionCounts
	var ucpN, ucpValid, smcpN, smcp, catN, cat, wmN, wm, cartN, cart int64
	var laneN, lane, brN, br, buyN, buy, blN, bl, scoreN, scoreSum int64
	var cwm publish.CheckoutWebMCPCounts
	var ev, inf, unk int64
	for _, r := range rows {
		c.Stores++
		c.Checked++ // no fixture store's check fails
		count := func(v *bool, n, k *int64) {
			if v != nil {
				*n++
				if *v {
					*k++
				}
			}
		}
		count(r.UCPValid, &ucpN, &ucpValid)
		count(r.StorefrontMCP, &smcpN, &smcp)
		count(r.CatalogAnswered, &catN, &cat)
		count(r.WebMCP, &wmN, &wm)
		count(r.CartLink, &cartN, &cart)
		count(r.BuyAgentCatalog, &laneN, &lane)
		count(r.BuyBrowser, &brN, &br)
		count(r.AgentsCanBuy, &buyN, &buy)
		count(r.Blocked, &blN, &bl)
		if r.Score != nil {
			scoreN++
			scoreSum += *r.Score
		}
		switch {
		case r.CheckoutWebMCPStatus == nil:
			cwm.NotChecked++
		case *r.CheckoutWebMCPStatus == "evidence":
			ev++
		case *r.CheckoutWebMCPStatus == "inferred":
			inf++
		default:
			unk++
		}
	}
	cwm.N = ev + inf + unk
	cwm.Evidence, cwm.Inferred, cwm.Unknown = share(ev, cwm.N), share(inf, cwm.N), share(unk, cwm.N)
	// No browser shopper runs in the truth world: nothing is measured at a
	// checkout page.
	cwm.Measured, cwm.MeasuredDetected = share(0, cwm.N), share(0, 0)
	c.ValidUCP = share(ucpValid, ucpN)
	c.AgentCatalogs = share(smcp, smcpN)
	c.CatalogAnswered = share(cat, catN)
	c.StorefrontWebMCP = share(wm, wmN)
	c.CheckoutWebMCP = cwm
	c.CheckoutLinks = share(cart, cartN)
	c.BuyAgentCatalog = share(lane, laneN)
	c.BuyBrowser = share(br, brN)
	c.AgentsCanBuy = share(buy, buyN)
	c.Blocked = share(bl, blN)
	if scoreN > 0 {
		v := float64(int64(float64(scoreSum)*10/float64(scoreN)+0.5)) / 10
		c.AverageScore = &v
	}
	return c
}

// truthWorld is every store's truth row, in host order.
func truthWorld(w *fixtures.World, lane map[string]*bool) []truthRow {
	return truthWorldPath(w, lane, nil)
}

// truthWorldPath is truthWorld with the UCP agent path's outcomes by host.
func truthWorldPath(w *fixtures.World, lane map[string]*bool, paths map[string]UCPPathResult) []truthRow {
	var out []truthRow
	for i := range w.Stores {
		st := &w.Stores[i]
		var path *UCPPathResult
		if p, ok := paths[st.Host]; ok {
			path = &p
		}
		out = append(out, truthAnswerPath(st, lane[st.Host], path))
	}
	slices.SortFunc(out, func(a, b truthRow) int {
		switch {
		case a.Host < b.Host:
			return -1
		case a.Host > b.Host:
			return 1
		}
		return 0
	})
	return out
}

package readlayer

import (
	"time"

	"svc/datasets"
	"svc/pipeline"
	"svc/pipeline/check"
)

// FromCheck builds a lookup row from a live check (GET
// /api/agent-checkout), with the checks columns exactly as the crawl would
// write them (pipeline.CheckRow) and the store_answers columns a live
// check decides: verdict, ucp_valid, the agent-catalog lane and the fix.
// The score and the browser lane are not measured by a live check: null.
func FromCheck(res *check.Result, dir *Row) *Row {
	r := NewRow(res.Host)
	st := pipeline.Store{Host: res.Host}
	if dir != nil {
		st.Name, st.Category, st.Source = dir.Text(FName), dir.Text(FCategory), dir.Text(FSource)
		for _, f := range []int{FSvc100ID, FAddedOn, FSvcURL} {
			r.vals[f] = dir.vals[f]
		}
	}
	row := pipeline.CheckRow(pipeline.CrawlRecord{Store: st, Result: res})
	for j, c := range datasets.Checks.Columns {
		if i, ok := fieldIndex[c.Name]; ok && j < len(row) && !checksSkipped[c.Name] {
			_ = r.Set(i, canonical(row[j]))
		}
	}
	r.Live = true
	if dir == nil {
		r.vals[FSource] = rowValue{} // not in the directory
	}
	ucpOK := map[string]any{"valid": true, "invalid": false, "missing": false}[res.UCPProfile.Status]
	_ = r.Set(FUCPValid, ucpOK)
	// buy.agent_catalog: cart link AND a valid profile, three-valued.
	var lane any
	switch {
	case r.IsFalse(FCartLink) || ucpOK == false:
		lane = false
	case r.IsTrue(FCartLink) && ucpOK == true:
		lane = true
	}
	_ = r.Set(FBuyCatalog, lane)
	_ = r.Set(FAgentsCanBuy, lane)
	if res.Fix.Text != "" {
		r.SetStr(FFix, res.Fix.Text)
	}
	if res.Platform == nil {
		r.vals[FCheckoutWebMCP] = rowValue{}
	}
	r.vals[FScore], r.vals[FScoreInputs] = rowValue{}, rowValue{}
	r.SetStr(FVerdict, liveVerdict(r))
	return r
}

// EncodeLive codes a row kept outside a snapshot (a live check in the
// server's history) compactly, every string inline.
func EncodeLive(r *Row) []byte { return inlineCodec.encode(nil, r) }

// DecodeLive is EncodeLive's reverse.
func DecodeLive(host string, rec []byte) (*Row, error) { return inlineCodec.decode(host, rec) }

// liveVerdict is aggregate_signals.sql's verdict for a live check (no
// browser lane).
func liveVerdict(r *Row) string {
	switch {
	case !r.vals[FCheckedAt].ok:
		return "check_failed"
	case r.IsTrue(FAgentsCanBuy):
		return "agents_can_buy"
	case r.IsTrue(FBlocked):
		return "blocked"
	case r.IsTrue(FParked) || r.IsTrue(FOtherBrand):
		return "not_a_store"
	case !r.vals[FPlatform].ok:
		return "unreachable"
	case r.IsTrue(FCartLink):
		return "cart_without_valid_ucp"
	case r.IsTrue(FCatalog) && !r.vals[FProductFound].ok:
		return "catalog_throttled"
	case r.IsTrue(FProductFound):
		return "catalog_only"
	}
	return "no_agent_catalog"
}

// canonical turns the Go values of a datasets.Row (as pipeline.CheckRow
// builds them) into the canonical ones Row.set takes.
func canonical(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case *int64:
		if x == nil {
			return nil
		}
		return *x
	case *time.Time:
		if x == nil {
			return nil
		}
		return *x
	}
	return v
}

package pipeline

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svc/datasets"
	"svc/datasets/svc100"
	"svc/pipeline/shop"
	"svc/publish"
)

// storeAnswerRows reads store_answers of a run by host, as column name →
// value.
func storeAnswerRows(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	cols, err := ReadTableFile(filepath.Join(dir, OutTables, datasets.StoreAnswers.Name+".parquet"), datasets.StoreAnswers)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for i := range cols.Len() {
		row := cols.Row(i)
		m := map[string]any{}
		for j, c := range datasets.StoreAnswers.Columns {
			m[c.Name] = row[j]
		}
		out[m["host"].(string)] = m
	}
	return out
}

func readPublished(t *testing.T, dir, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, OutFiles, filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestCheckoutWebMCPMeasuredIntoStoreAnswers: where a browser shopper
// reached a store's checkout page, store_answers says measured, with what
// it saw there (a tool → true and its names; none → false); where the
// shoppers ran but none reached checkout, the crawl's inference stays and
// the reason says no shopper reached checkout; a store no shopper ran at
// keeps the crawl's answer as it was. Adoption splits the counts into
// measured / evidence / inferred / unknown, and the protocol matrix's
// WebMCP answer stage is the measured share.
func TestCheckoutWebMCPMeasuredIntoStoreAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("aggregates the fixture world")
	}
	d := sharedWorld(t)
	data := t.TempDir()
	dir := d.newRun(t, data, "w1", "2026-05-04")
	env := StageEnv{DataDir: data, RunID: "w1", Out: io.Discard, ErrOut: io.Discard}
	aggregate := func() {
		t.Helper()
		if err := AggregateStage(context.Background(), AggregateStageOptions{StageEnv: env, NoHistory: true}); err != nil {
			t.Fatal(err)
		}
	}
	aggregate()
	before := storeAnswerRows(t, dir)
	var adoptBefore publish.Adoption
	readPublished(t, dir, publish.AdoptionPath, &adoptBefore)

	// Three SVC-100 stores checked as shops: one whose checkout page
	// registered tools, one whose did not, one no shopper got to.
	var picked []svc100.Store
	for _, st := range svc100.Stores() {
		if r := before[st.Host]; r != nil && r["platform"] != nil && r["checkout_webmcp_status"] != "measured" {
			picked = append(picked, st)
		}
		if len(picked) == 4 {
			break
		}
	}
	if len(picked) < 4 {
		t.Fatalf("only %d SVC-100 stores checked as shops", len(picked))
	}
	withTools, without, notReached, untouched := picked[0].Host, picked[1].Host, picked[2].Host, picked[3].Host
	recs := scriptedShopRecords(picked[:3], func(host, shopper string) string {
		switch {
		case shopper == "D":
			return shop.NotAttempted
		case host == withTools && shopper == "C", host == without && (shopper == "A" || shopper == "B"):
			return shop.CheckoutReached
		}
		return shop.NoCart
	})
	for _, r := range recs {
		if r.Report.Outcome == shop.CheckoutReached {
			cw := &shop.CheckoutWebMCP{Tools: []string{}}
			if r.Host == withTools {
				cw = &shop.CheckoutWebMCP{Detected: true, Tools: []string{"get_checkout", "update_checkout"}}
			}
			r.Report.CheckoutWebMCP = cw
		}
	}
	writeShopJournal(t, dir, recs)
	aggregate()
	after := storeAnswerRows(t, dir)

	tools := func(r map[string]any) string { s, _ := r["checkout_webmcp_tools"].(string); return s }
	reason := func(r map[string]any) string { s, _ := r["checkout_webmcp_reason"].(string); return s }
	if r := after[withTools]; r["checkout_webmcp_status"] != "measured" || r["checkout_webmcp_detected"] != true ||
		tools(r) != `["get_checkout","update_checkout"]` || !strings.Contains(reason(r), "browser shopper C") ||
		!strings.Contains(reason(r), "2026-11-21") {
		t.Errorf("%s (tools at checkout): %v %v %s %q", withTools, r["checkout_webmcp_status"], r["checkout_webmcp_detected"], tools(r), reason(r))
	}
	if r := after[without]; r["checkout_webmcp_status"] != "measured" || r["checkout_webmcp_detected"] != false ||
		tools(r) != `[]` || !strings.Contains(reason(r), "browser shopper A, B") {
		t.Errorf("%s (no tool at checkout): %v %v %s %q", without, r["checkout_webmcp_status"], r["checkout_webmcp_detected"], tools(r), reason(r))
	}
	r, b := after[notReached], before[notReached]
	if r["checkout_webmcp_status"] != b["checkout_webmcp_status"] || r["checkout_webmcp_detected"] != b["checkout_webmcp_detected"] ||
		tools(r) != tools(b) || !strings.HasPrefix(reason(r), "No browser shopper reached this store's checkout page (shoppers A, B, C, E tried)") ||
		!strings.HasSuffix(reason(r), reason(b)) {
		t.Errorf("%s (checkout not reached): %v %v %s %q; before %v %q", notReached, r["checkout_webmcp_status"], r["checkout_webmcp_detected"],
			tools(r), reason(r), b["checkout_webmcp_status"], reason(b))
	}
	if s := b["checkout_webmcp_status"]; s != "inferred" && s != "unknown" && s != "evidence" {
		t.Errorf("%s: crawl status %v", notReached, s)
	}
	if r, b := after[untouched], before[untouched]; r["checkout_webmcp_status"] != b["checkout_webmcp_status"] || reason(r) != reason(b) || reason(b) == "" {
		t.Errorf("%s (no shopper): %v %q, before %v %q", untouched, r["checkout_webmcp_status"], reason(r), b["checkout_webmcp_status"], reason(b))
	}

	// The published evidence shows what each shopper saw at checkout, and
	// null for one that reached none.
	var ev publish.ShopEvidence
	readPublished(t, dir, publish.ShopEvidencePath(withTools), &ev)
	for _, sh := range ev.Shoppers {
		cw := sh.CheckoutWebMCP
		switch {
		case sh.Shopper == "C" && (cw == nil || !cw.Detected || strings.Join(cw.Tools, ",") != "get_checkout,update_checkout"):
			t.Errorf("evidence of C at %s: %+v", withTools, cw)
		case sh.Shopper != "C" && cw != nil:
			t.Errorf("evidence of %s at %s: %+v, want null", sh.Shopper, withTools, cw)
		}
	}

	var adopt publish.Adoption
	readPublished(t, dir, publish.AdoptionPath, &adopt)
	cw, cb := adopt.Now.CheckoutWebMCP, adoptBefore.Now.CheckoutWebMCP
	if cw.Measured.Count != 2 || cw.MeasuredDetected.Count != 1 || cw.MeasuredDetected.N != 2 || cw.N != cb.N {
		t.Errorf("adoption checkoutWebmcp %+v, before %+v", cw, cb)
	}
	if cw.Measured.Count+cw.Evidence.Count+cw.Inferred.Count+cw.Unknown.Count != cw.N {
		t.Errorf("measured/evidence/inferred/unknown do not split n: %+v", cw)
	}
	// The two measured stores left the crawl's counts.
	left := map[string]int64{}
	for _, h := range []string{withTools, without} {
		left[before[h]["checkout_webmcp_status"].(string)]++
	}
	if cw.Evidence.Count != cb.Evidence.Count-left["evidence"] || cw.Inferred.Count != cb.Inferred.Count-left["inferred"] ||
		cw.Unknown.Count != cb.Unknown.Count-left["unknown"] {
		t.Errorf("adoption %+v, before %+v, measured stores were %v", cw, cb, left)
	}
	var pm publish.ProtocolMatrix
	readPublished(t, dir, publish.ProtocolsPath, &pm)
	for _, row := range pm.Rows {
		if row.ID != "webmcp" {
			continue
		}
		a := row.Stages.Answer
		if a.Evidence != Measured || a.Count == nil || *a.Count != 1 || *a.N != 2 {
			t.Errorf("webmcp answer stage %+v", a)
		}
		if !strings.Contains(row.Stages.Transact.Basis, "measured at 2 stores") {
			t.Errorf("webmcp transact basis %q", row.Stages.Transact.Basis)
		}
	}
}

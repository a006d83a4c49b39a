package pipeline

import (
	"strings"
	"svc/publish"
	"testing"
	"time"
)

// TestWeeklyComparesOnlyTheSameMetric: an edition from before the figure
// counted US UCP checkout links (storefront MCP links over every store)
// is not set against the new one as if it measured the same thing.
func TestWeeklyComparesOnlyTheSameMetric(t *testing.T) {
	all := groupCounts{Grp: "all", USStores: 10, USLinkN: 8, USLink: 2}
	in := &figureInputs{run: RunInfo{ID: "r2", Date: "2026-05-11", Started: time.Date(2026, 5, 11, 3, 0, 0, 0, time.UTC)},
		groups: []groupCounts{all}}
	pct := 40.0
	in.prevWeekly = &publish.WeeklyEdition{Schema: WeeklySchema, Date: "2026-05-04", N: 100, Count: 40, Pct: &pct,
		Metric: "Share of checked stores whose hosted catalog and cart tools (storefront MCP) returned a checkout link"}
	e := buildWeekly(in)
	if e.Comparison.Previous != nil || !strings.Contains(e.Comparison.Text, "measured something else") {
		t.Errorf("compared with another metric: %+v", e.Comparison)
	}
	if e.N != 8 || e.Count != 2 || *e.Pct != 25 || e.MarketStores != 10 || e.NotMeasured != 2 {
		t.Errorf("edition %+v", e)
	}
	in.prevWeekly = &publish.WeeklyEdition{Schema: WeeklySchema, Date: "2026-05-04", N: 4, Count: 0, Pct: new(float64), Metric: weeklyMetric}
	e = buildWeekly(in)
	if p := e.Comparison.Previous; p == nil || p.ChangePctPoints == nil || *p.ChangePctPoints != 25 {
		t.Errorf("not compared with the same metric: %+v", e.Comparison)
	}
	in.groups = []groupCounts{{Grp: "all", USStores: 10, USLinkN: 8}}
	if e := buildWeekly(in); !ucpPathCreatesCheckout && !strings.Contains(e.Note, "agent-path/") || !strings.Contains(e.Headline, "0.0% of 8 US stores") {
		t.Errorf("a week without a UCP checkout link: headline %q, note %q", e.Headline, e.Note)
	}
}

// TestDirectoryCountDenominator: without UCP schemas a profile that breaks
// no rule is unvalidated, left out of validUcp's n but still judged by the
// directory's lighter count; the count's share must be over the stores it
// was judged on (a demo run from a clone without ../shared once published
// 130 of 54, 240.7%).
func TestDirectoryCountDenominator(t *testing.T) {
	g := groupCounts{Stores: 200, Checked: 200, UCPN: 54, UCPValid: 0, UCPDirectory: 130, UCPDirectoryN: 184}
	a := g.adoption()
	if a.UCPDirectory.N != 184 || a.UCPDirectory.Count != 130 || a.UCPDirectory.Pct == nil || *a.UCPDirectory.Pct > 100 {
		t.Errorf("ucpDirectoryCount = %+v, want 130 of 184", a.UCPDirectory)
	}
	if a.ValidUCP.N != 54 {
		t.Errorf("validUcp n = %d, want 54 (unvalidated profiles left out)", a.ValidUCP.N)
	}
}

// TestValidUCPNotMeasuredWhileUnvalidated: a profile left unvalidated (no
// schemas) is one that broke no rule, so a share over the others counts
// only invalid ones: a demo run from a clone without ../shared published
// validUcp 0 of 54 and the matrix's validate stage 0% "Measured". While any
// profile is unvalidated both are not measured, and the declare stage still
// counts the unvalidated profiles as served.
func TestValidUCPNotMeasuredWhileUnvalidated(t *testing.T) {
	g := groupCounts{Grp: "all", Stores: 200, Checked: 200, UCPN: 54, UCPValid: 0, UCPServed: 155, UCPDirectoryN: 184, UCPUnvalidated: 130}
	if a := g.adoption(); a.ValidUCP.Pct != nil || a.ValidUCP.N != 0 {
		t.Errorf("validUcp = %+v, want not measured (0 of 0, pct null)", a.ValidUCP)
	}
	in := &figureInputs{run: RunInfo{ID: "r", Date: "2026-12-02"}, groups: []groupCounts{g}}
	ucp := buildProtocols(in).Rows[0]
	if v := ucp.Stages.Validate; v.Evidence != NotMeasured || v.Percentage != nil || !strings.Contains(v.Basis, "130 profiles") {
		t.Errorf("validate stage = %+v, want Not measured naming the 130 unvalidated profiles", v)
	}
	if d := ucp.Stages.Declare; d.N == nil || *d.N != 184 || *d.Count != 155 {
		t.Errorf("declare stage = %+v, want 155 of 184", d)
	}
	g.UCPUnvalidated, g.UCPValid = 0, 20
	if a := g.adoption(); a.ValidUCP.Pct == nil || a.ValidUCP.Count != 20 || a.ValidUCP.N != 54 {
		t.Errorf("validUcp with every profile validated = %+v, want 20 of 54", a.ValidUCP)
	}
	in.groups = []groupCounts{g}
	if v := buildProtocols(in).Rows[0].Stages.Validate; v.Evidence != Measured || *v.Count != 20 || *v.N != 54 {
		t.Errorf("validate stage with every profile validated = %+v, want 20 of 54 Measured", v)
	}
}

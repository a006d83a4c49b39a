package pages

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"svc/publish"
)

func TestLeaderboardChart(t *testing.T) {
	page := string(build(t, testInput(t))["leaderboard/index.html"])
	for _, want := range []string{
		`class="whisker"`, "Browser shopper A: 50.0% (interval 30.0% to 70.0%, n 20)", "UCP path: not run",
		"Unverified outside submissions", "Outside &lt;Agent&gt;", // escaped
		`href="/stores/buyhere.test/"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the leaderboard does not hold %q", want)
		}
	}
	if strings.Contains(page, `href="/stores/elsewhere.test/"`) {
		t.Error("the grid links a store without a page")
	}
	if n := strings.Count(page, `class="whisker"`); n != 3 {
		t.Errorf("%d whisker lines, want 3 (one path measured)", n)
	}
}

// TestLeaderboardLabels is issue 16.8 on the page: over the fixture
// world's stand-in test set the page says so and never "real stores";
// fixture runs read as fixture data, not measured; ranks are shown; an
// outside run has an anchor (the 201's url) and says when it was listed
// since the snapshot. RenderLeaderboard, the server's renderer, gives the
// published page byte for byte.
func TestLeaderboardLabels(t *testing.T) {
	in := testInput(t)
	var board publish.Leaderboard
	if err := json.Unmarshal(in.Files[0].Data, &board); err != nil {
		t.Fatal(err)
	}
	one, two := 1, 2
	board.Paths[0].Rank = &one
	board.Unverified.Runs[0].Rank = &one
	standIn := board
	standIn.FixtureStandIn, standIn.TestSetNote = true, "Fixture stand-in: synthetic stores."
	standIn.Paths = append([]publish.AgentPathRow{}, board.Paths...)
	fixture := standIn.Paths[0]
	fixture.ID, fixture.Label, fixture.Status, fixture.Verified, fixture.Evidence, fixture.FixtureData, fixture.MeasuredBy, fixture.Rank =
		"browser-b", "Browser shopper B", "fixture", false, "Fixture data", true, nil, &two
	standIn.Paths = append(standIn.Paths, fixture)
	standIn.Unverified.Runs = []publish.SubmissionRow{board.Unverified.Runs[0]}
	standIn.Unverified.Runs[0].InDataset = false

	for _, tc := range []struct {
		name      string
		board     publish.Leaderboard
		want, not []string
	}{
		{"real", board, []string{"(100 real stores)", `<tr id="sub-1"><td>1</td>`, "listed since the snapshot"},
			[]string{"Fixture stand-in", "fixture data"}},
		{"stand-in", standIn, []string{"Fixture stand-in: synthetic stores.", "100 synthetic stores, not real ones",
			"Browser shopper B (fixture data, not measured): 50.0%", "<td>Fixture data <span class=\"tag\">not measured</span></td>",
			"<td>2</td><th scope=\"row\">Browser shopper B", `<tr id="sub-1">`, "listed since the snapshot"},
			[]string{"real stores", "Measured by", "fixture data</span>"}},
	} {
		b, err := json.Marshal(tc.board)
		if err != nil {
			t.Fatal(err)
		}
		in.Files[0].Data = b
		page := string(build(t, in)["leaderboard/index.html"])
		for _, w := range tc.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q", tc.name, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(page, w) {
				t.Errorf("%s: the page holds %q", tc.name, w)
			}
		}
		site, _ := NewSite("", in.Version)
		var buf bytes.Buffer
		if err := RenderLeaderboard(&buf, site, &tc.board, func(h string) bool { return h == "buyhere.test" }); err != nil {
			t.Fatal(err)
		}
		if buf.String() != page {
			t.Errorf("%s: RenderLeaderboard differs from the published page", tc.name)
		}
	}
}

// TestRenderForServer renders the pages the server makes: a store's live
// check, the unknown host and the validator with an error, under a base
// path.
func TestRenderForServer(t *testing.T) {
	site, err := NewSite("https://svc.example/x/", "2026-11-16")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	yes := true
	if err := RenderStore(&buf, site, &Store{Host: "live.test", Live: true, AgentsCanBuy: &yes, CartLink: &yes}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "this page shows its live check") || !strings.Contains(buf.String(), `href="/x/directory/"`) {
		t.Error("the live page does not say it is a live check, or ignores the base path")
	}
	// A snapshot's page with a newer live check beside it, the brand's
	// section and the badge.
	buf.Reset()
	verdict, no := "agents_can_buy", false
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	if err := RenderStore(&buf, site, &Store{Host: "shop.test", Verdict: &verdict, AgentsCanBuy: &yes, CartLink: &yes,
		LiveCheck: &LiveCheck{CheckedAt: at, Reachable: &yes, CartLink: &no}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`id="live-check"`, `datetime="2026-11-20T09:30:00Z"`, "Not returned", `id="claim"`,
		`src="/x/stores/shop.test/badge.svg"`, "no way to submit a statement yet", "this page shows its live check"} {
		if want == "this page shows its live check" {
			if strings.Contains(page, want) {
				t.Error("a snapshot's page says it is a live check's")
			}
			continue
		}
		if !strings.Contains(page, want) {
			t.Errorf("the store page with a newer live check lacks %q", want)
		}
	}
	buf.Reset()
	if err := RenderUnknownStore(&buf, site, UnknownStore{Host: "new.test"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `action="/x/api/agent-checkout"`) || !strings.Contains(buf.String(), `value="https://new.test/"`) {
		t.Error("the unknown-host page does not point at the live check")
	}
	buf.Reset()
	if err := RenderValidate(&buf, site, &Validation{Profile: "{<not json>", Error: "The profile is larger than the limit."}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Validation could not run", "{&lt;not json&gt;</textarea>"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the validator page does not hold %q", want)
		}
	}
	if _, ok := Asset(StyleFile()); !ok {
		t.Error("the style sheet is not embedded under its published name")
	}
}

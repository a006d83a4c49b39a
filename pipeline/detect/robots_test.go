package detect

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestRobotsFromResponse(t *testing.T) {
	tests := []struct {
		status int
		body   string
		state  RobotsState
		want   RobotsMatch
	}{
		{200, "User-agent: *\nDisallow: /\n", RobotsParsed, RobotsMatch{Verdict: Disallowed, Group: "*", Rule: "Disallow: /", Line: 2}},
		{404, "User-agent: *\nDisallow: /\n", RobotsUnavailable, RobotsMatch{Verdict: NoRule, Reason: "robots.txt answered 404: no restrictions (RFC 9309 2.3.1.3)"}},
		{403, "", RobotsUnavailable, RobotsMatch{Verdict: NoRule, Reason: "robots.txt answered 403: no restrictions (RFC 9309 2.3.1.3)"}},
		{429, "", RobotsUnavailable, RobotsMatch{Verdict: NoRule, Reason: "robots.txt answered 429: no restrictions (RFC 9309 2.3.1.3)"}},
		{310, "", RobotsUnavailable, RobotsMatch{Verdict: NoRule, Reason: "robots.txt answered 310: no restrictions (RFC 9309 2.3.1.3)"}},
		{500, "", RobotsUnreachable, RobotsMatch{Verdict: Disallowed, Reason: "robots.txt answered 500: complete disallow assumed (RFC 9309 2.3.1.4)"}},
		{503, "User-agent: *\nAllow: /\n", RobotsUnreachable, RobotsMatch{Verdict: Disallowed, Reason: "robots.txt answered 503: complete disallow assumed (RFC 9309 2.3.1.4)"}},
		{0, "", RobotsUnreachable, RobotsMatch{Verdict: Disallowed, Reason: "robots.txt unreachable: complete disallow assumed (RFC 9309 2.3.1.4)"}},
	}
	for _, tt := range tests {
		r := RobotsFromResponse(tt.status, []byte(tt.body))
		if r.State != tt.state {
			t.Errorf("status %d: state %q, want %q", tt.status, r.State, tt.state)
		}
		if diff := cmp.Diff(tt.want, r.Match("GPTBot", "/")); diff != "" {
			t.Errorf("status %d: mismatch (-want +got):\n%s", tt.status, diff)
		}
	}
}

func TestParseRobotsSitemapsAndGroups(t *testing.T) {
	body := `User-agent: GPTBot
User-agent: ClaudeBot
Disallow: /
Sitemap: https://shop.example/sitemap.xml

User-agent: *
Allow: /
Sitemap: https://shop.example/sitemap.xml
sitemap: https://shop.example/sitemap_products.xml
`
	r := ParseRobots([]byte(body))
	want := &Robots{
		State: RobotsParsed,
		Groups: []RobotsGroup{
			{Agents: []string{"GPTBot", "ClaudeBot"}, Rules: []RobotsRule{{Pattern: "/", Line: 3}}},
			{Agents: []string{"*"}, Rules: []RobotsRule{{Allow: true, Pattern: "/", Line: 7}}},
		},
		Sitemaps: []string{"https://shop.example/sitemap.xml", "https://shop.example/sitemap_products.xml"},
	}
	if diff := cmp.Diff(want, r, cmpopts.IgnoreUnexported(Robots{}, RobotsRule{})); diff != "" {
		t.Errorf("ParseRobots mismatch (-want +got):\n%s", diff)
	}
}

func TestParseRobotsTruncates(t *testing.T) {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for b.Len() < MaxRobotsBytes-20 {
		b.WriteString("Disallow: /x\n")
	}
	// The line that crosses the limit must be dropped, not cut.
	b.WriteString("Disallow: /private-area-that-is-long\n")
	b.WriteString("Disallow: /after\n")
	r := ParseRobots([]byte(b.String()))
	if !r.Truncated {
		t.Fatal("Truncated = false, want true")
	}
	if got := r.Match("GPTBot", "/p"); got.Verdict != NoRule {
		t.Errorf("cut line became a rule: %+v", got)
	}
	if got := r.Match("GPTBot", "/after"); got.Verdict != NoRule {
		t.Errorf("rule after the limit was read: %+v", got)
	}
}

func TestRobotsReport(t *testing.T) {
	body := `User-agent: GPTBot
Disallow: /

User-agent: ClaudeBot
User-agent: CCBot
Disallow: /products/
Allow: /

User-agent: *
Disallow: /checkout
`
	rep := RobotsReport(ParseRobots([]byte(body)), "/products/shoe")
	if len(rep) != len(AIAgents()) {
		t.Fatalf("report has %d agents, want %d", len(rep), len(AIAgents()))
	}
	got := map[string][2]Verdict{}
	for _, v := range rep {
		got[v.Agent.Token] = [2]Verdict{v.Home.Verdict, v.Product.Verdict}
	}
	want := map[string][2]Verdict{
		"GPTBot":            {Disallowed, Disallowed},
		"OAI-SearchBot":     {NoRule, NoRule},
		"ChatGPT-User":      {NoRule, NoRule},
		"ClaudeBot":         {Allowed, Disallowed},
		"Claude-SearchBot":  {NoRule, NoRule},
		"Claude-User":       {NoRule, NoRule},
		"PerplexityBot":     {NoRule, NoRule},
		"Perplexity-User":   {NoRule, NoRule},
		"Google-Extended":   {NoRule, NoRule},
		"Applebot-Extended": {NoRule, NoRule},
		"CCBot":             {Allowed, Disallowed},
		"Bytespider":        {NoRule, NoRule},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report mismatch (-want +got):\n%s", diff)
	}

	if rep := RobotsReport(ParseRobots([]byte(body)), ""); rep[0].Product != nil {
		t.Errorf("Product verdict without a product path: %+v", rep[0].Product)
	}

	purposes := map[Purpose]int{}
	for _, a := range AIAgents() {
		purposes[a.Purpose]++
		if a.Operator == "" {
			t.Errorf("%s has no operator", a.Token)
		}
	}
	if diff := cmp.Diff(map[Purpose]int{PurposeTraining: 6, PurposeSearch: 3, PurposeUser: 3}, purposes); diff != "" {
		t.Errorf("purposes mismatch (-want +got):\n%s", diff)
	}
}

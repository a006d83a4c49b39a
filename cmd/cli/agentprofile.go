package cli

import (
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"svc/pipeline/leaderboard"
)

// agentProfileFlag is --agent-profile (env SVC_AGENT_PROFILE), the URL of
// svc's UCP platform profile that the UCP path names in UCP-Agent. Without
// it the commands take <base-url>/.well-known/ucp, where `svc serve
// --base-url` publishes the profile; with neither the path sends a
// placeholder that serves nothing and says so.
type agentProfileFlag struct {
	url string
}

func (f *agentProfileFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.url, "agent-profile", envOr("SVC_AGENT_PROFILE", ""),
		"URL of svc's UCP platform profile sent in UCP-Agent by the UCP path (env SVC_AGENT_PROFILE); "+
			"default <base-url>"+leaderboard.AgentProfilePath+", the profile `svc serve` publishes")
}

// validate wants an absolute https URL (UCP overview "Profile Requirements":
// published profiles MUST be served over HTTPS); http is let through only
// over the fixture world.
func (f *agentProfileFlag) validate(g *globals) error {
	if f.url == "" {
		return nil
	}
	u, err := url.Parse(f.url)
	ok := err == nil && u.Host != "" && u.User == nil && u.Fragment == "" &&
		(u.Scheme == "https" || u.Scheme == "http" && g.fixtureAddr != "")
	if !ok || len(f.url) > 2048 || strings.ContainsAny(f.url, "\"\\ \t\r\n") {
		return usagef("--agent-profile %q: want an absolute https:// URL of svc's UCP platform profile", f.url)
	}
	return nil
}

// resolve is the profile URL the UCP path sends: the flag, else the one
// under base ("" when both are empty: the path falls back and says so).
func (f *agentProfileFlag) resolve(base string) string {
	if f.url != "" {
		return f.url
	}
	return leaderboard.AgentProfileURL(base)
}

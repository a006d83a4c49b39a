package cli

import (
	"fmt"
	"testing"

	"github.com/spf13/cobra"
)

// TestAgentProfileFlags: the commands that run the UCP path take
// --agent-profile (env SVC_AGENT_PROFILE); without it the profile is the
// one under the base URL (validate has no --base-url and reads
// SVC_BASE_URL); with neither it is empty, which the path turns into the
// placeholder and says so. A profile URL that is not absolute https is a
// usage error before anything runs.
func TestAgentProfileFlags(t *testing.T) {
	for _, k := range []string{"SVC_STORES", "SVC_BASE_URL", "SVC_AGENT_PROFILE", "SVC_STATE"} {
		t.Setenv(k, "")
	}
	t.Setenv("SVC_RUN", "env-run")
	data := t.TempDir()
	var got string
	build := map[string]func(g *globals) *cobra.Command{
		"validate": func(g *globals) *cobra.Command {
			return newValidateCmdWith(g, func(o *validateOptions) error {
				got = fmt.Sprintf("%q", o.profile.resolve(envOr("SVC_BASE_URL", "")))
				return nil
			})
		},
		"run": func(g *globals) *cobra.Command {
			return newRunCmdWith(g, func(o *runOptions) error {
				got = fmt.Sprintf("%q", o.profile.resolve(o.baseURL))
				return nil
			})
		},
		"schedule": func(g *globals) *cobra.Command {
			return newScheduleCmdWith(g, func(o *scheduleOptions) error {
				got = fmt.Sprintf("%q", o.run.profile.resolve(o.run.baseURL))
				return nil
			})
		},
	}
	good := []flagCase{
		{"validate", nil, `""`},
		{"validate", []string{"--agent-profile", "https://svc.example/.well-known/ucp"}, `"https://svc.example/.well-known/ucp"`},
		{"run", []string{"--stores", "s.csv"}, `""`},
		{"run", []string{"--stores", "s.csv", "--base-url", "https://svc.example/"}, `"https://svc.example/.well-known/ucp"`},
		{"run", []string{"--stores", "s.csv", "--base-url", "https://svc.example", "--agent-profile", "https://agents.example/svc.json"}, `"https://agents.example/svc.json"`},
		{"schedule", []string{"--cron", "@weekly", "--stores", "s.csv", "--base-url", "https://svc.example"}, `"https://svc.example/.well-known/ucp"`},
	}
	bad := []flagCase{
		{cmd: "validate", args: []string{"--agent-profile", "http://svc.example/.well-known/ucp"}}, // not https
		{cmd: "validate", args: []string{"--agent-profile", "/.well-known/ucp"}},                   // not absolute
		{cmd: "run", args: []string{"--stores", "s.csv", "--agent-profile", `https://svc.example/a"b`}},
		{cmd: "run", args: []string{"--stores", "s.csv", "--agent-profile", "https://user@svc.example/ucp"}},
		{cmd: "schedule", args: []string{"--cron", "@weekly", "--stores", "s.csv", "--agent-profile", "ftp://svc.example/ucp"}},
	}
	checkFlagCases(t, data, &got, build, good, bad)

	// The environment: SVC_AGENT_PROFILE is the flag's default, and
	// validate takes the profile under SVC_BASE_URL.
	t.Setenv("SVC_BASE_URL", "https://base.example")
	checkFlagCases(t, data, &got, build, []flagCase{{"validate", nil, `"https://base.example/.well-known/ucp"`}}, nil)
	t.Setenv("SVC_AGENT_PROFILE", "https://env.example/ucp")
	checkFlagCases(t, data, &got, build, []flagCase{
		{"validate", nil, `"https://env.example/ucp"`},
		{"run", []string{"--stores", "s.csv"}, `"https://env.example/ucp"`},
	}, nil)
}

// TestAgentProfileHTTPOverFixtures: plain http is let through only with
// the fixture flag, as the demo's own API is.
func TestAgentProfileHTTPOverFixtures(t *testing.T) {
	f := agentProfileFlag{url: "http://127.0.0.1:8080/.well-known/ucp"}
	if err := f.validate(&globals{}); err == nil {
		t.Error("http accepted without --fixture-addr")
	}
	if err := f.validate(&globals{fixtureAddr: "127.0.0.1:4443"}); err != nil {
		t.Errorf("http over the fixture world: %v", err)
	}
	// The demo names the copy the fixture world serves on https.
	if err := (&agentProfileFlag{url: demoAgentProfile}).validate(&globals{fixtureAddr: "127.0.0.1:4443"}); err != nil {
		t.Errorf("the demo's profile URL %s: %v", demoAgentProfile, err)
	}
}

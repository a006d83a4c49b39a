package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"svc/pipeline/httpsig"
	"svc/pipeline/leaderboard"
)

// TestAgentKeyFlags: the commands that sign the UCP path (validate, run,
// schedule, shop URL --shopper ucp) take --agent-key (env SVC_AGENT_KEY);
// a file that is not one P-256 private key is a usage error before
// anything runs, and the error does not quote it. validate takes --state,
// where the key is kept without the flag. The stage form of shop signs
// nothing and refuses the flag.
func TestAgentKeyFlags(t *testing.T) {
	for _, k := range []string{"SVC_STORES", "SVC_BASE_URL", "SVC_AGENT_PROFILE", "SVC_STATE", "SVC_AGENT_KEY"} {
		t.Setenv(k, "")
	}
	data := t.TempDir()
	key, _ := httpsig.GenerateKey()
	pemBytes, _ := key.MarshalPEM()
	good := filepath.Join(data, "agent.pem")
	bad := filepath.Join(data, "bad.pem")
	if err := os.WriteFile(good, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("hunter2"), 0o600); err != nil {
		t.Fatal(err)
	}
	var got string
	build := map[string]func(g *globals) *cobra.Command{
		"validate": func(g *globals) *cobra.Command {
			return newValidateCmdWith(g, func(o *validateOptions) error { got = o.key.file + " " + o.state.value; return nil })
		},
		"run": func(g *globals) *cobra.Command {
			return newRunCmdWith(g, func(o *runOptions) error { got = o.key.file; return nil })
		},
		"schedule": func(g *globals) *cobra.Command {
			return newScheduleCmdWith(g, func(o *scheduleOptions) error { got = o.run.key.file; return nil })
		},
		"shop": func(g *globals) *cobra.Command {
			return newShopCmdWith(g, func(o *shopOptions) error { got = o.key.file + " " + o.state.value; return nil })
		},
	}
	checkFlagCases(t, data, &got, build, []flagCase{
		{"validate", []string{"--agent-key", good}, good + " "},
		{"validate", []string{"--state", "/srv/state"}, " /srv/state"},
		{"run", []string{"--stores", "s.csv", "--agent-key", good}, good},
		{"schedule", []string{"--cron", "@weekly", "--stores", "s.csv", "--agent-key", good}, good},
		{"shop", []string{"https://shop.example/", "--shopper", "ucp", "--agent-key", good, "--state", "/srv/state"}, good + " /srv/state"},
	}, []flagCase{
		{cmd: "validate", args: []string{"--agent-key", bad}},
		{cmd: "validate", args: []string{"--agent-key", filepath.Join(data, "missing.pem")}},
		{cmd: "validate", args: []string{"--state", "s3://bucket/state"}},
		{cmd: "run", args: []string{"--stores", "s.csv", "--agent-key", bad}},
		{cmd: "schedule", args: []string{"--cron", "@weekly", "--stores", "s.csv", "--agent-key", bad}},
		{cmd: "shop", args: []string{"https://shop.example/", "--shopper", "ucp", "--agent-key", bad}},
		{cmd: "shop", args: []string{"--agent-key", good}}, // the stage form
	})
	t.Setenv("SVC_AGENT_KEY", good)
	checkFlagCases(t, data, &got, build, []flagCase{{"run", []string{"--stores", "s.csv"}, good}}, nil)

	// The message of a bad file names the file, not its bytes.
	var out, errOut strings.Builder
	t.Setenv("SVC_AGENT_KEY", "")
	code := Run(context.Background(), []string{"validate", "--data", data, "--agent-key", bad}, &out, &errOut)
	if code != ExitUsage || !strings.Contains(errOut.String(), "--agent-key") || strings.Contains(out.String()+errOut.String(), "hunter2") {
		t.Errorf("exit %d: %s%s", code, out.String(), errOut.String())
	}
}

// TestServePublishesAgentKey: svc serve publishes the public key of the
// key the pipeline signs with: the state's (DATA/state), which the
// validate stage loads the same way, or the --agent-key file's.
func TestServePublishesAgentKey(t *testing.T) {
	t.Setenv("SVC_AGENT_KEY", "")
	data := t.TempDir()
	own, _ := httpsig.GenerateKey()
	pemBytes, _ := own.MarshalPEM()
	file := filepath.Join(t.TempDir(), "agent.pem")
	if err := os.WriteFile(file, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	served := func(keyFile string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var kid string
		o := &serveOptions{globals: &globals{context: ctx, data: data, out: io.Discard, errOut: io.Discard},
			addr: "127.0.0.1:0", syncEvery: time.Second, key: agentKeyFlag{file: keyFile}}
		o.ucpFlags.offline = true
		err := serveRun(ctx, o, func(addr string) {
			defer cancel()
			resp, err := http.Get("http://" + addr + leaderboard.AgentProfilePath)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var doc struct {
				Keys []struct {
					Kid string `json:"kid"`
					D   string `json:"d"`
				} `json:"keys"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || len(doc.Keys) != 1 || doc.Keys[0].D != "" {
				t.Errorf("profile keys %+v %v", doc.Keys, err)
				return
			}
			kid = doc.Keys[0].Kid
		})
		if err != nil {
			t.Fatal(err)
		}
		return kid
	}
	state, err := leaderboard.LoadAgentKey(context.Background(), "", filepath.Join(data, "state"))
	if err != nil {
		t.Fatal(err)
	}
	if got := served(""); got != state.KeyID() {
		t.Errorf("serve publishes %s, the pipeline signs with the state's %s", got, state.KeyID())
	}
	if got := served(file); got != own.KeyID() {
		t.Errorf("serve --agent-key publishes %s, want %s", got, own.KeyID())
	}
}

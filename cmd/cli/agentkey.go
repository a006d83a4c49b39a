package cli

import (
	"context"
	"path/filepath"

	"github.com/spf13/cobra"

	"svc/pipeline/httpsig"
	"svc/pipeline/leaderboard"
)

// agentKeyFlag is --agent-key (env SVC_AGENT_KEY): a file holding svc's
// UCP signing key, a PEM private key (PKCS #8 or SEC 1) or a JWK with d,
// ECDSA P-256. Without it the key is the one kept in the state store
// (--state: DATA/state/agent-key.pem, or the postgres:// database),
// created there on first use. The pipeline signs its UCP requests with the
// key and `svc serve` publishes its public half in svc's platform profile,
// so both must be given the same file, or share the state.
type agentKeyFlag struct {
	file string
	key  *httpsig.Key // the file's key, read by validate
}

func (f *agentKeyFlag) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.file, "agent-key", envOr("SVC_AGENT_KEY", ""),
		"file of svc's UCP signing key, a PEM or JWK ECDSA P-256 private key (env SVC_AGENT_KEY); "+
			"default the key kept in the state (--state), created on first use")
}

// validate reads the file now, so a missing or malformed key is a usage
// error before any work; the error never quotes the file.
func (f *agentKeyFlag) validate() error {
	if f.file == "" {
		return nil
	}
	k, err := leaderboard.ReadAgentKeyFile(f.file)
	if err != nil {
		return usagef("--agent-key: %v", err)
	}
	f.key = k
	return nil
}

// load is the key: the file's, else the state store's (state "" is
// DATA/state).
func (f *agentKeyFlag) load(ctx context.Context, g *globals, state string) (*httpsig.Key, error) {
	if f.key != nil {
		return f.key, nil
	}
	if state == "" {
		state = filepath.Join(g.data, "state")
	}
	return leaderboard.LoadAgentKey(ctx, f.file, state)
}

package leaderboard

import (
	"context"
	"fmt"
	"io"
	"os"

	"svc/pipeline/httpsig"
	"svc/pipeline/inbox"
)

// svc's signing key (UCP Message Signatures, github.com/Universal-
// Commerce-Protocol/ucp docs/specification/signatures.md): the pipeline's
// UCP path signs every request to a shopping binding with it, and `svc
// serve` publishes its public key in svc's platform profile, where a
// business that verifies signatures finds it through the UCP-Agent header
// (overview "Key Discovery"). Both read it from the state store they
// share (--state), where the first of them to need it creates it; an
// operator may name a key file instead (--agent-key), which must then be
// given to both.

// maxAgentKeyFile bounds an --agent-key file: a PEM or JWK of one P-256
// key is a few hundred bytes.
const maxAgentKeyFile = 64 << 10

// AgentKeyFrom returns the key kept in store, creating a fresh one there
// on first use.
func AgentKeyFrom(ctx context.Context, store inbox.KeyStore) (*httpsig.Key, error) {
	return keptKey(func(fresh []byte) ([]byte, error) { return store.AgentKey(ctx, fresh) })
}

// LoadAgentKey returns svc's signing key: the file keyFile names (a PEM
// private key or a JWK with d), else the key kept in the state store state
// names (a folder, or a postgres:// database), created there on first use.
func LoadAgentKey(ctx context.Context, keyFile, state string) (*httpsig.Key, error) {
	if keyFile != "" {
		return ReadAgentKeyFile(keyFile)
	}
	return keptKey(func(fresh []byte) ([]byte, error) { return inbox.AgentKey(ctx, state, fresh) })
}

// ReadAgentKeyFile reads the key of an --agent-key file.
func ReadAgentKeyFile(path string) (*httpsig.Key, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("agent key %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxAgentKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("agent key %s: %w", path, err)
	}
	if len(b) > maxAgentKeyFile {
		return nil, fmt.Errorf("agent key %s: over %d bytes: not one key", path, maxAgentKeyFile)
	}
	k, err := httpsig.ParseKey(b)
	if err != nil {
		return nil, fmt.Errorf("agent key %s: %w", path, err)
	}
	return k, nil
}

// keptKey is the key a state store keeps: get returns it, keeping the
// fresh key given first when the store holds none.
func keptKey(get func(fresh []byte) ([]byte, error)) (*httpsig.Key, error) {
	k, err := httpsig.GenerateKey()
	if err != nil {
		return nil, err
	}
	fresh, err := k.MarshalPEM()
	if err != nil {
		return nil, err
	}
	b, err := get(fresh)
	if err != nil {
		return nil, err
	}
	if k, err = httpsig.ParseKey(b); err != nil {
		return nil, fmt.Errorf("the agent key kept in the state store: %w", err)
	}
	return k, nil
}

package inbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgxpool"

	"svc/pipeline/durable"
)

// svc's own UCP signing key is kept in the state store the server and the
// pipeline share, beside the HMAC secret: `svc serve` publishes its public
// key in svc's platform profile and the pipeline signs its UCP requests
// with it, so both must read the same key. The store keeps the key's bytes
// (a PEM block); making and parsing keys is the caller's (package httpsig).

// AgentKeyFile is the file of the key in a folder state store
// (DIR/state/agent-key.pem), mode 0600.
const AgentKeyFile = "agent-key.pem"

// KeyStore keeps svc's signing key.
type KeyStore interface {
	// AgentKey returns the key kept, keeping fresh first when the store
	// holds none. Of writers racing on an empty store the first wins and
	// every one of them gets its key back.
	AgentKey(ctx context.Context, fresh []byte) ([]byte, error)
}

var (
	_ KeyStore = (*File)(nil)
	_ KeyStore = (*Postgres)(nil)
)

// AgentKey returns the key in the folder of the file inbox.
func (l *File) AgentKey(_ context.Context, fresh []byte) ([]byte, error) {
	return agentKeyIn(filepath.Dir(l.dir), fresh)
}

// agentKeyIn reads dir/agent-key.pem, creating it with fresh on first use:
// written to a temporary file, fsynced and hard-linked into place, so a
// reader sees no file or the whole one and of two first uses one wins. A
// file others may read is refused rather than used: it holds a private key.
func agentKeyIn(dir string, fresh []byte) ([]byte, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("agent key: %w", err)
	}
	path := filepath.Join(dir, AgentKeyFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if len(fresh) == 0 {
			return nil, errors.New("agent key: none kept and none given")
		}
		if err := durable.CreateExclusive(path, fresh, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("agent key: create %s: %w", path, err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("agent key: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("agent key: %s has mode %o: it holds a private key, make it 0600 (chmod 600)", path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("agent key: %w", err)
	}
	return b, nil
}

// AgentKey returns the key in the database, inserting fresh first when
// there is none (the first replica's wins).
func (p *Postgres) AgentKey(ctx context.Context, fresh []byte) ([]byte, error) {
	if len(fresh) > 0 {
		if _, err := p.pool.Exec(ctx, "INSERT INTO agent_key (pem) VALUES ($1) ON CONFLICT DO NOTHING", string(fresh)); err != nil {
			return nil, fmt.Errorf("agent key: %w", err)
		}
	}
	var pem string
	if err := p.pool.QueryRow(ctx, "SELECT pem FROM agent_key").Scan(&pem); err != nil {
		return nil, fmt.Errorf("agent key: %w", err)
	}
	return []byte(pem), nil
}

// AgentKey opens the state store state names just for the key, as the
// pipeline does (it has no inbox open): a folder (created if need be), or
// a PostgreSQL database, whose schema is created or migrated first exactly
// as `svc serve` does at start, so a pipeline run before any server has
// the table.
func AgentKey(ctx context.Context, state string, fresh []byte) ([]byte, error) {
	if !IsPostgres(state) {
		return agentKeyIn(state, fresh)
	}
	pool, err := pgxpool.New(ctx, state)
	if err != nil {
		return nil, fmt.Errorf("agent key: open state: %s", redact(err))
	}
	defer pool.Close()
	p := &Postgres{pool: pool}
	if err := p.migrate(ctx); err != nil {
		return nil, err
	}
	return p.AgentKey(ctx, fresh)
}

package inbox

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is the inbox in a PostgreSQL database, for serve replicas that
// share their state: the records, the HMAC secret, and the Shared state
// (quota counters, precheck rows, accepted hosts, the newest live check of
// each host, a lock per host being checked). Every write is committed
// before the method returns. Open creates and migrates the schema.
type Postgres struct {
	pool   *pgxpool.Pool
	secret []byte
	follow follower // Follow's cursor
}

var (
	_ Inbox  = (*Postgres)(nil)
	_ Shared = (*Postgres)(nil)
)

// IsPostgres reports whether state names a PostgreSQL database
// (postgres://… or postgresql://…) rather than a folder.
func IsPostgres(state string) bool {
	return strings.HasPrefix(state, "postgres://") || strings.HasPrefix(state, "postgresql://")
}

//go:embed sql/*.sql
var migrations embed.FS

// migrateLock is the advisory lock key that serialises migrations of one
// database between replicas starting together.
const migrateLock = 0x5356435f4d494752 // "SVC_MIGR"

// OpenPostgres connects to the database at url, creates or migrates its
// schema, and reads (creating on first use) the shared HMAC secret.
func OpenPostgres(ctx context.Context, url string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open state: %s", redact(err))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open state: %s", redact(err))
	}
	p := &Postgres{pool: pool}
	if err := p.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if p.secret, err = p.loadSecret(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return p, nil
}

// redact keeps a connection error from echoing a password.
func redact(err error) string {
	s := err.Error()
	if i := strings.Index(s, "://"); i >= 0 {
		if j := strings.Index(s[i:], "@"); j >= 0 {
			s = s[:i+3] + "…" + s[i+j:]
		}
	}
	return s
}

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	ents, err := fs.ReadDir(migrations, "sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range ents {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name it NNNN_what.sql", e.Name())
		}
		b, err := migrations.ReadFile("sql/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share a version", out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// migrate applies the embedded migrations not yet in schema_migrations,
// each in its own transaction, under an advisory lock so two replicas
// starting at once apply each one once. A database migrated by a newer svc
// is refused.
func (p *Postgres) migrate(ctx context.Context) error {
	ms, err := loadMigrations()
	if err != nil {
		return fmt.Errorf("state migrations: %w", err)
	}
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("open state: %s", redact(err))
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrateLock)); err != nil {
		return fmt.Errorf("state migrations: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(migrateLock)) //nolint:errcheck // the session ends anyway
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("state migrations: %w", err)
	}
	var applied int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&applied); err != nil {
		return fmt.Errorf("state migrations: %w", err)
	}
	if known := ms[len(ms)-1].version; applied > known {
		return fmt.Errorf("state schema is at version %d, newer than this svc knows (%d): upgrade svc", applied, known)
	}
	for _, m := range ms {
		if m.version <= applied {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return fmt.Errorf("state migration %s: %w", m.name, err)
		}
	}
	return nil
}

// loadSecret creates the shared secret once (the first replica's wins) and
// reads it back.
func (p *Postgres) loadSecret(ctx context.Context) ([]byte, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	if _, err := p.pool.Exec(ctx, "INSERT INTO secret (value) VALUES ($1) ON CONFLICT DO NOTHING", fresh); err != nil {
		return nil, fmt.Errorf("state secret: %w", err)
	}
	var secret []byte
	if err := p.pool.QueryRow(ctx, "SELECT value FROM secret").Scan(&secret); err != nil {
		return nil, fmt.Errorf("state secret: %w", err)
	}
	return secret, nil
}

func recordJSON(typ string, data any) ([]byte, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("append %s: %w", typ, err)
	}
	return raw, nil
}

// Append inserts one record; it is committed when Append returns.
func (p *Postgres) Append(ctx context.Context, typ string, t time.Time, data any) error {
	raw, err := recordJSON(typ, data)
	if err != nil {
		return err
	}
	if _, err := p.pool.Exec(ctx, "INSERT INTO records (type, at, data) VALUES ($1, $2, $3)", typ, t.UTC(), string(raw)); err != nil {
		return fmt.Errorf("append %s: %w", typ, err)
	}
	return nil
}

// Note is Append: a committed insert costs little more than an uncommitted
// one here.
func (p *Postgres) Note(ctx context.Context, typ string, t time.Time, data any) error {
	return p.Append(ctx, typ, t, data)
}

// Replay calls fn for every record, oldest first.
func (p *Postgres) Replay(ctx context.Context, fn func(Record) error) error {
	return p.query(ctx, fn, "SELECT type, at, data::text FROM records ORDER BY id")
}

// Records calls fn for every record of type typ whose time is not after
// until (zero: no bound), oldest first.
func (p *Postgres) Records(ctx context.Context, typ string, until time.Time, fn func(Record) error) error {
	if until.IsZero() {
		return p.query(ctx, fn, "SELECT type, at, data::text FROM records WHERE type = $1 ORDER BY id", typ)
	}
	return p.query(ctx, fn, "SELECT type, at, data::text FROM records WHERE type = $1 AND at <= $2 ORDER BY id", typ, until.UTC())
}

func (p *Postgres) query(ctx context.Context, fn func(Record) error, sql string, args ...any) error {
	rows, err := p.pool.Query(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("replay state: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var rec Record
		var data string
		if err := rows.Scan(&rec.Type, &rec.Time, &data); err != nil {
			return fmt.Errorf("replay state: %w", err)
		}
		rec.Time, rec.Data = rec.Time.UTC(), json.RawMessage(data)
		if err := fn(rec); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("replay state: %w", err)
	}
	return nil
}

// Key returns the keyed hash that stands for a client address, with the
// secret every replica shares.
func (p *Postgres) Key(addr string) string { return keyOf(p.secret, addr) }

// Close closes the connections.
func (p *Postgres) Close() error {
	p.pool.Close()
	return nil
}

// errNoRow is a quota take that would go over its limit.
var errNoRow = errors.New("over the limit")

// OpenReader opens the inbox state names for reading, as the pipeline
// stages that read submissions do: a PostgreSQL URL (the database serve
// replicas share; its schema is neither created nor migrated here) or a
// folder (DirReader). close releases it.
func OpenReader(ctx context.Context, state string) (r Reader, close func(), err error) {
	if !IsPostgres(state) {
		return DirReader(state), func() {}, nil
	}
	pool, err := pgxpool.New(ctx, state)
	if err != nil {
		return nil, nil, fmt.Errorf("open state: %s", redact(err))
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("open state: %s", redact(err))
	}
	return &Postgres{pool: pool}, pool.Close, nil
}

package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"svc/pipeline/check"
	"svc/pipeline/inbox"
	"svc/publish/bucket"
	"svc/serve"
)

// serveOptions holds the flags of `svc serve`.
type serveOptions struct {
	*globals
	addr       string
	baseURL    string
	state      string // postgres://… shares state between replicas; empty: DATA/state
	trustProxy bool
	accessLog  float64       // share of requests logged one line each
	statsEvery time.Duration // interval of the aggregate request line
	syncEvery  time.Duration // serve.Config.Sync, and how often an s3:// --data is polled
	ucpFlags   ucpSchemaFlags
	key        agentKeyFlag                // the key /.well-known/ucp publishes
	pending    func(version string) string // serve.Config.Pending (svc demo); no flag
}

func newServeCmd(g *globals) *cobra.Command {
	o := &serveOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the REST API and the MCP server over the published datasets",
		Long: `Serve DATA/public: the precomputed answers and dataset files (with sha256
ETags and the cache headers of the interface), filtered reads from DuckDB
over data/latest, the live store check, UCP validation, store and
leaderboard submissions, and the MCP server. A new snapshot is picked up
without a restart.

Logs are JSON lines on stderr and never hold a client address or user
agent (every line is scrubbed of IP addresses); limits key on an HMAC of
the client's network with a secret kept in DATA/state. Every minute
(--stats-every) one line counts the requests by status class with their
p50 and p99 latency; one line per request is off unless --access-log asks
for a share of them. Logging never makes a request wait: lines that cannot
be written in time are dropped and counted. Behind a reverse proxy, --trust-proxy takes the client address
from the last X-Forwarded-For entry. SIGTERM or Ctrl-C shuts down
gracefully.

State (limits, the live-check cache, submissions, precheck rows) is an
append-only log under DATA/state by default: one server. Several replicas
behind a load balancer share it in PostgreSQL with --state postgres://…
(env SVC_STATE): svc creates and migrates the schema itself, keeps the
HMAC secret there once for all replicas, counts every limit atomically in
the database and commits each accepted write before it answers. Every
--sync-every each replica writes its precheck counts and reads what the
others accepted (live checks, submissions, leaderboard runs), so its
listings show them within that interval.

GET /.well-known/ucp is svc's UCP platform profile, with the public key of
svc's signing key, the key the pipeline's UCP path signs its requests
with: --agent-key (env SVC_AGENT_KEY), else the key kept in the state
(DATA/state/agent-key.pem, mode 0600, or the database), created there on
first use. The private key is never logged, published or answered.

With --data s3://bucket/prefix the server keeps a copy of the published
tree in the local cache (--cache-dir): at start, and every --sync-every,
it reads data/latest.json; a new version is copied down whole (the version
folder and the files beside data/) before data/latest moves to it, so
per-host reads stay on local files. Give such replicas --state postgres://…
too: otherwise each keeps its own state in its cache.

The Index answer (GET /api/ask) reads what a language model tells shoppers
through an OpenAI-compatible chat API named by SVC_LLM_URL, SVC_LLM_MODEL
and SVC_LLM_KEY; without them it says no model is configured.`,
		Example: `  svc serve --addr 127.0.0.1:8080
  svc serve --addr :8080 --trust-proxy --base-url https://svc.example
  SVC_STATE=postgres://svc@db.internal/svc svc serve --addr :8080 --trust-proxy`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, _, err := net.SplitHostPort(o.addr); err != nil {
				return usagef("--addr %q: want HOST:PORT", o.addr)
			}
			if o.syncEvery < 100*time.Millisecond || o.syncEvery > time.Hour {
				return usagef("--sync-every must be 100ms to 1h")
			}
			return serveRun(cmd.Context(), o, nil)
		},
		Annotations: map[string]string{storageAnnotation: "yes"},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", envOr("SVC_ADDR", "127.0.0.1:8080"), "address to listen on (env SVC_ADDR)")
	f.StringVar(&o.baseURL, "base-url", envOr("SVC_BASE_URL", ""), "absolute base of links in answers (env SVC_BASE_URL); empty for root-relative")
	f.StringVar(&o.state, "state", envOr("SVC_STATE", ""), "where the server's state lives (env SVC_STATE): empty for DATA/state, postgres://… for a database replicas share")
	f.BoolVar(&o.trustProxy, "trust-proxy", false, "take the client address from X-Forwarded-For (only behind your own proxy)")
	f.Float64Var(&o.accessLog, "access-log", envFloat("SVC_ACCESS_LOG", 0), "share of requests logged one line each, 0 to 1 (env SVC_ACCESS_LOG); 0 logs none")
	f.DurationVar(&o.statsEvery, "stats-every", envDuration("SVC_STATS_EVERY", time.Minute), "interval of the one log line of request counts and latency (env SVC_STATS_EVERY); 0 for none")
	f.DurationVar(&o.syncEvery, "sync-every", envDuration("SVC_SYNC_EVERY", 2*time.Second), "how often precheck counts are written, other replicas' accepted submissions and checks read, and an s3:// --data's latest.json polled (env SVC_SYNC_EVERY)")
	o.ucpFlags.register(cmd)
	o.key.register(cmd)
	return cmd
}

// serveRun serves until ctx ends. ready, when set, is called once the
// listener is up.
func serveRun(ctx context.Context, o *serveOptions, ready func(addr string)) error {
	if err := o.key.validate(); err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(o.errOut, &slog.HandlerOptions{Level: slog.LevelInfo}))
	client, err := o.newClient()
	if err != nil {
		return err
	}
	v, err := o.ucpFlags.validator(o.globals, client)
	if err != nil {
		return err
	}
	var mirror *bucket.Mirror
	if o.store != nil && o.store.Bucket != nil {
		// The first copy comes down before the server starts, so it
		// serves the latest snapshot from its first request.
		mirror = bucket.NewMirror(o.store.Bucket, "public", filepath.Join(o.data, "public"))
		if _, _, err := mirror.Sync(ctx); err != nil {
			return exitWith(ExitUnreachable, fmt.Errorf("serve --data %s: %w", o.dataURL, err))
		}
		if !inbox.IsPostgres(o.state) {
			log.Warn("serving a bucket with state in the local cache: replicas share nothing; give them --state postgres://…")
		}
	}
	srv, err := serve.New(serve.Config{
		// svc's signing key: the --agent-key file's (read by validate),
		// else (nil) the state's.
		DataDir: o.data, State: o.state, AgentKey: o.key.key, Engine: check.New(check.Options{Client: client, UCP: v}), UCP: v, Client: client,
		Log: log, TrustProxy: o.trustProxy, BaseURL: o.baseURL, AccessLog: o.accessLog, StatsEvery: o.statsEvery, Sync: o.syncEvery,
		Pending: o.pending,
		LLM:     serve.LLMConfig{URL: envOr("SVC_LLM_URL", ""), Model: envOr("SVC_LLM_MODEL", ""), Key: envOr("SVC_LLM_KEY", "")},
	})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	hs := srv.HTTPServer()
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go srv.Watch(wctx)
	if mirror != nil {
		go followBucket(wctx, mirror, srv, o.syncEvery, log)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	log.Info("serving", "addr", ln.Addr().String(), "data", cmp.Or(o.dataURL, o.data), "shared_state", inbox.IsPostgres(o.state))
	if ready != nil {
		ready(ln.Addr().String())
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve shutdown: %w", err)
	}
	return nil
}

// followBucket keeps the local copy of an s3:// --data's published tree
// current until ctx ends, and has the server load a new version at once.
func followBucket(ctx context.Context, m *bucket.Mirror, srv *serve.Server, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		v, moved, err := m.Sync(ctx)
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("published tree not synced from the bucket; still serving the local copy", "error", err)
			}
			continue
		}
		if moved {
			log.Info("published tree synced from the bucket", "version", v)
			if err := srv.Reload(); err != nil {
				log.Warn("snapshot reload failed; still serving the previous one", "error", err)
			}
		}
	}
}

// Package serve is the read API of svc: it serves the published artifact
// tree, answers filtered reads from DuckDB over the latest snapshot, runs the
// live store check, takes store and leaderboard submissions into the durable
// state log, and hosts the MCP server. Reads never fetch from a store.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"svc/datasets/svc100"
	"svc/pipeline/check"
	"svc/pipeline/fetch"
	"svc/pipeline/httpsig"
	"svc/pipeline/inbox"
	"svc/pipeline/ucp"
	"svc/serve/readlayer"
)

// Config configures a Server.
type Config struct {
	DataDir string // DIR: public/ is served, state/ holds the log
	// State is where the state lives: empty for the file log under
	// DIR/state, a folder for a file log there, or postgres://… for a
	// PostgreSQL database that replicas share (inbox.Postgres).
	State string
	// Engine runs live checks; nil makes the live check answer 503.
	Engine *check.Engine
	// UCP validates profiles; nil makes validation answer 503.
	UCP *ucp.Validator
	// LLM is the model the Index answer reads from; unset, the answer says
	// no model is configured and invents nothing.
	LLM LLMConfig
	// Client is the safe client store submissions are validated through;
	// nil makes POST /api/stores/submit answer 503.
	Client *fetch.Client
	// AgentKey is svc's signing key, whose public key GET /.well-known/ucp
	// publishes; nil takes the key kept in the state (State), created
	// there on first use, the key the pipeline signs with.
	AgentKey *httpsig.Key

	Log *slog.Logger
	Now func() time.Time
	// TrustProxy takes the client address from X-Forwarded-For (the last
	// entry, the one our proxy added) instead of the connection.
	TrustProxy bool
	// BaseURL makes the links in answers absolute ("https://svc.example");
	// empty gives root-relative links.
	BaseURL string
	// Reload is how often the server looks for a new snapshot; default 2 s.
	Reload time.Duration
	// AccessLog is the share of requests logged one line each: 0 none (the
	// default), 1 every one, 0.01 one in a hundred. Failures (5xx, panics)
	// are logged whatever it is.
	AccessLog float64
	// StatsEvery is how often one line of aggregate request counts is
	// logged (logging.go); 0 never.
	StatsEvery time.Duration
	// Sync is how often the precheck counts are written and, with state
	// in PostgreSQL, the records other replicas accepted are read
	// (sync.go): the bound on how stale their listings are here. Default
	// 2 s.
	Sync time.Duration
	// Pending, when set, gives the notice the home page and the
	// leaderboard pages carry while the version being served (its
	// argument) lacks what a run is still measuring; "" for none
	// (pending.go).
	Pending func(version string) string
}

// Server holds what the handlers share. Create it with New.
type Server struct {
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
	public string
	state  inbox.Inbox
	// shared is the state replicas agree on through the database (nil for
	// the file log, whose state lives in this process): the check cache,
	// host claims, accepted hosts and precheck rows ask it too.
	shared inbox.Shared
	limits *limiter
	cache  *checkCache
	subs   *submissions // store and leaderboard submissions (submit*.go)
	reads  *readState   // live-check history, reachability, precheck rows (readstate.go)

	snap     atomic.Pointer[snapshot]
	reloadMu sync.Mutex
	// badVersion failed to load (badErr): it is not loaded again, at a
	// million stores' cost every tick, until data/latest moves.
	badVersion string
	badErr     error

	llm *llmCache // one model read per host a day

	profile *file // svc's platform profile with its key (agentprofile.go)

	mcpOnce  sync.Once
	mcpJSON  http.Handler // MCP answers as JSON (mcp_transport.go)
	mcpSSE   http.Handler // the same, as an event stream, for clients that accept only that
	mcpCalls atomic.Int64 // tool calls run, for tests

	inflightMu sync.Mutex
	inflight   map[string]bool // hosts with a live check running

	heavy     *heavyGate // slots for requests with large bodies (httpserver.go)
	logs      *logQueue  // behind s.log: requests never wait for a log write
	stats     reqStats   // counts of the current stats interval
	statsStop chan struct{}
	statsDone chan struct{}

	syncWake  chan struct{} // the sync loop (sync.go)
	syncStop  chan struct{}
	syncDone  chan struct{}
	lastFlush time.Time // of the precheck counts to the file log; the sync loop's own
}

// snapshot is one published version as the server sees it; requests read
// the pointer once, so a reload never changes data under a request.
type snapshot struct {
	version string
	files   map[string]*file  // public/ paths outside data/ -> body
	sha256  map[string]string // "<version>/<file>" -> sha256, from the manifest
	// dataJSON holds the version's small JSON documents (manifest.json,
	// datapackage.json) by "<version>/<file>", served from memory.
	dataJSON map[string]*file
	read     readlayer.Source // lookups and DuckDB over the tables (readlayer.Layer); nil without tables
}

// New opens the state log, replays it, loads the latest snapshot (if any)
// and returns a server. Close it to release the log.
func New(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = discard
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Reload <= 0 {
		cfg.Reload = 2 * time.Second
	}
	if cfg.Sync <= 0 {
		cfg.Sync = defaultSync
	}
	cfg.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	st, shared, err := openState(cfg)
	if err != nil {
		return nil, err
	}
	key, err := agentKey(cfg, st)
	if err != nil {
		st.Close()
		return nil, err
	}
	log, logs := newServerLog(cfg.Log)
	s := &Server{
		cfg: cfg, log: log, logs: logs, heavy: newHeavyGate(), now: cfg.Now, public: filepath.Join(cfg.DataDir, "public"),
		state: st, shared: shared, limits: newLimiter(st, cfg.Now), cache: newCheckCache(),
		subs: newSubmissions(), reads: newReadState(), inflight: map[string]bool{},
		llm: &llmCache{m: map[string]cachedRead{}}, profile: newProfileFile(key),
	}
	s.limits.shared = shared
	replay := st.Replay
	if shared != nil { // the first Follow replays every record and sets where later ones start
		replay = shared.Follow
	}
	if err := replay(context.Background(), s.replay); err != nil {
		st.Close()
		logs.close()
		return nil, fmt.Errorf("replay state: %w", err)
	}
	if cfg.StatsEvery > 0 {
		s.statsStop, s.statsDone = make(chan struct{}), make(chan struct{})
		go s.statsLoop(cfg.StatsEvery, s.statsStop, s.statsDone)
	}
	s.startSync(cfg.Sync)
	s.snap.Store(&snapshot{})
	if err := s.Reload(); err != nil {
		s.log.Warn("no snapshot loaded", "error", err)
	}
	return s, nil
}

// openState opens the state cfg names: PostgreSQL, shared by replicas, or
// the file log, this process's own.
func openState(cfg Config) (inbox.Inbox, inbox.Shared, error) {
	if inbox.IsPostgres(cfg.State) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		pg, err := inbox.OpenPostgres(ctx, cfg.State)
		if err != nil {
			return nil, nil, err
		}
		return pg, pg, nil
	}
	dir := cfg.State
	if dir == "" {
		dir = filepath.Join(cfg.DataDir, "state")
	}
	st, err := inbox.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	return st, nil, nil
}

// replay folds one state-log record into the in-memory state.
func (s *Server) replay(rec inbox.Record) error {
	s.limits.replay(rec)
	s.cache.replay(rec, s.now())
	s.subs.replay(rec)
	s.reads.replay(rec, s.now())
	return nil
}

// Close releases the state log, and writes the last stats line and every
// queued log record.
func (s *Server) Close() error {
	// The read layer closes once the requests reading it are done.
	if old := s.snap.Swap(&snapshot{}); old != nil && old.read != nil {
		old.read.Release()
	}
	if s.statsStop != nil {
		close(s.statsStop)
		<-s.statsDone
		s.statsStop = nil
	}
	s.stopSync()
	err := s.state.Close()
	s.logs.close()
	return err
}

func (s *Server) current() *snapshot { return s.snap.Load() }

// Reload loads the snapshot data/latest points at, when it changed. A
// failed load keeps the snapshot being served.
func (s *Server) Reload() error { return s.reload(context.Background()) }

func (s *Server) reload(ctx context.Context) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	target, err := os.Readlink(filepath.Join(s.public, "data", "latest"))
	if err != nil {
		return fmt.Errorf("no data/latest yet: %w", err)
	}
	version := filepath.Base(target)
	if cur := s.current(); cur.version == version {
		return nil
	}
	if version == s.badVersion {
		return fmt.Errorf("snapshot %s: %w: %w", version, errSkippedVersion, s.badErr)
	}
	files, err := loadFiles(s.public)
	if err != nil {
		return fmt.Errorf("load %s: %w", s.public, err)
	}
	// Answer over the SVC-100 list this tree published (the real one, or
	// the fixture stand-ins of a demo), not over the build's default.
	if b, err := os.ReadFile(filepath.Join(s.public, filepath.FromSlash(svc100.CSVPath))); err == nil {
		if err := svc100.UsePublished(b); err != nil {
			s.log.Warn("test set", "err", err)
		}
	}
	sums, err := manifestSums(filepath.Join(s.public, "data", version, "manifest.json"), version)
	if err != nil {
		return err
	}
	layer, err := readlayer.Open(ctx, filepath.Join(s.public, "data", version), version)
	if errors.Is(err, readlayer.ErrNoTables) {
		layer, err = nil, nil
	}
	if err != nil {
		s.badVersion, s.badErr = version, err
		return err
	}
	var read readlayer.Source // nil, not a nil *Layer, without tables
	if layer != nil {
		read = layer
	}
	// Once swapped in, a Close racing this reload may release the layer:
	// this reload holds a reference of its own until it is done with it,
	// and reads what the log line says of it first.
	if read != nil && read.Acquire() {
		defer read.Release()
	}
	attrs := []any{"version", version, "files", len(files)}
	if layer != nil {
		attrs = append(attrs, "stores", layer.Stores(), "lookup_mb", layer.MemBytes()>>20, "load_ms", layer.LoadTime().Milliseconds(),
			"row_cache_mb", layer.RowCacheBytes()>>20)
		if err := layer.RowCacheErr(); err != nil {
			attrs = append(attrs, "row_cache_error", err.Error())
		}
	}
	old := s.snap.Swap(&snapshot{version: version, files: files, sha256: sums, read: read,
		dataJSON: loadDataJSON(filepath.Join(s.public, "data", version), version)})
	if old != nil && old.read != nil {
		old.read.Release() // closed when its last request is done
	}
	s.reads.pruneHistory(read, s.now())
	s.log.Info("snapshot loaded", attrs...)
	return nil
}

// manifestSums reads the sha256 of every file of a version folder.
func manifestSums(path, version string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	var m struct {
		Files []struct {
			Path   string `json:"path"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", path, err)
	}
	out := map[string]string{}
	for _, f := range m.Files {
		out[version+"/"+strings.TrimPrefix(f.Path, "/")] = f.SHA256
	}
	return out, nil
}

// Watch reloads the snapshot whenever data/latest moves, until ctx ends.
func (s *Server) Watch(ctx context.Context) {
	t := time.NewTicker(s.cfg.Reload)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.reload(ctx); err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, errSkippedVersion) {
				s.log.Warn("snapshot reload failed; still serving the previous one", "error", err)
			}
		}
	}
}

// caller returns the keyed hash standing for the client's network: the
// address for IPv4, the /64 for IPv6. The raw address goes no further.
func (s *Server) caller(r *http.Request) string {
	addr := r.RemoteAddr
	if s.cfg.TrustProxy {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			parts := strings.Split(xff, ",")
			addr = strings.TrimSpace(parts[len(parts)-1])
		}
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		return s.state.Key("unknown")
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return s.state.Key(p.String())
	}
	return s.state.Key(ip.String())
}

// link makes a path absolute when a base URL is configured.
func (s *Server) link(p string) string { return s.cfg.BaseURL + p }

// Handler returns the HTTP handler with every route, behind the
// connection rules of httpserver.go.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	s.routes(mux)
	return guard(cors(s.gateHeavy(mux)))
}

package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svc/fixtures"
)

// BenchmarkServeLoad (issue 17, make bench) runs the real `svc serve`
// binary on loopback over the fixture snapshot and loads it from many
// keep-alive connections with a mix of every read, REST and MCP, for a
// fixed time; it prints requests per second, p50/p99, the 5xx count, the
// server's peak RSS and the bytes it logged. A second run repeats it
// against a fresh server while one hostile client (one network, a few
// connections) sends the largest bodies each endpoint allows and MCP
// batches; it prints the p99 of the normal traffic against the first run
// (target <= 2x) and the peak RSS.
//
//	SVC_BIN=bin/svc go test -run '^$' -bench '^BenchmarkServeLoad$' -benchtime 1x ./serve/
//
// SVC_BIN is the svc binary (default ../bin/svc; make bench builds it).
// SVC_LOAD_MIX_SECONDS sets each run's length (default 60), SVC_LOAD_CONNS
// the connections (default 256), SVC_LOAD_HOSTILE_CONNS the hostile
// client's (default 4), SVC_LOAD_BATCH the calls in its MCP batches
// (default 1000); SVC_LOAD_HOSTILE_ONLY=PATH[,PATH] keeps the hostile
// bodies of those endpoints only. Everything stays on loopback: the server's only outbound
// destination, for store submissions of *.test hosts, is a closed loopback
// port given as its fixture address; UCP schemas are read offline.
func BenchmarkServeLoad(b *testing.B) {
	if testing.Short() {
		b.Skip("runs svc serve under load for minutes; skipped with -short")
	}
	bin := os.Getenv("SVC_BIN")
	if bin == "" {
		bin = filepath.Join("..", "bin", "svc")
	}
	if _, err := os.Stat(bin); err != nil {
		b.Skipf("no svc binary at %s (make bench builds bin/svc; or set SVC_BIN): %v", bin, err)
	}
	d := time.Duration(envNum("SVC_LOAD_MIX_SECONDS", 60) * float64(time.Second))
	conns := int(envNum("SVC_LOAD_CONNS", 256))
	hostileConns := int(envNum("SVC_LOAD_HOSTILE_CONNS", 4))
	batch := int(envNum("SVC_LOAD_BATCH", 1000))
	f := sharedReadFixture(b)
	var hosts []string
	for _, s := range f.world.Stores {
		hosts = append(hosts, s.Host)
	}
	for b.Loop() {
		base := runServeLoad(b, bin, f, hosts, d, conns, 0, 0)
		hostile := runServeLoad(b, bin, f, hosts, d, conns, hostileConns, batch)
		fmt.Printf("svc serve under load on loopback: %d connections, %s a run, a mix of %d reads (REST and MCP) over the fixture snapshot\n",
			conns, d, len(loadMix(hosts[0])))
		for _, r := range []struct {
			name string
			r    serveLoadResult
		}{{"normal", base}, {"with hostile", hostile}} {
			fmt.Printf("  %-12s %6.0f req/s, p50 %s, p99 %s, max %s, 5xx %d, other non-2xx %d, failed %d, peak RSS %s MB, logged %d bytes\n",
				r.name, r.r.rps, r.r.p50.Round(time.Microsecond), r.r.p99.Round(time.Microsecond), r.r.max.Round(time.Millisecond),
				r.r.status5xx, r.r.otherNon2xx, r.r.failed, mb(r.r.peakRSS), r.r.logBytes)
			if r.r.non2xx != "" {
				fmt.Printf("  %-12s non-2xx answers: %s\n", "", r.r.non2xx)
			}
		}
		ratio := float64(hostile.p99) / float64(max(base.p99, time.Microsecond))
		fmt.Printf("  hostile client: %d requests (%s), %d MB sent; p99 of the normal traffic %.2fx the run without it (target <= 2x)\n",
			hostile.hostileN, hostile.hostileStatus, hostile.hostileBytes>>20, ratio)
		b.ReportMetric(base.rps, "req/s")
		b.ReportMetric(float64(base.p99.Microseconds())/1000, "p99-ms")
		b.ReportMetric(ratio, "p99-hostile/normal")
		b.ReportMetric(float64(base.status5xx+hostile.status5xx), "5xx")
		b.ReportMetric(float64(max(base.peakRSS, hostile.peakRSS)>>20), "peak-rss-MB")
	}
}

func envNum(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil && v > 0 {
		return v
	}
	return def
}

type serveLoadResult struct {
	rps                            float64
	p50, p99, max                  time.Duration
	status5xx, otherNon2xx, failed int64
	peakRSS                        int64
	logBytes                       int64
	hostileN, hostileBytes         int64
	hostileStatus                  string
	non2xx                         string
}

// loadReq is one request of the mix.
type loadReq struct {
	method, path, body string
}

// loadMix is every read of the API, REST and MCP, about host.
func loadMix(host string) []loadReq {
	q := "?host=" + host
	get := func(p string) loadReq { return loadReq{http.MethodGet, p, ""} }
	tool := func(name, args string) loadReq {
		return loadReq{http.MethodPost, "/api/ask", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`}
	}
	h := `{"host":"` + host + `"}`
	return []loadReq{
		get("/api/agent-checkout/adoption"), get("/api/protocols"), get("/api/leaderboard"),
		get("/api/leaderboard?stores=1"), get("/api/leaderboard?format=csv"), get("/api/weekly/agent-checkout.json"),
		get("/data/latest/manifest.json"), get("/api/precheck?url=" + host), get("/api/precheck/stats"),
		get("/api/store" + q), get("/api/agent-checkout/product-data" + q), get("/api/agent-facts" + q),
		get("/api/agent-facts?category=apparel&limit=5"), get("/api/agent-checkout/stores?category=apparel"),
		get("/api/ask?url=https://" + host + "/"), get("/api/leaderboard/submit"), get("/openapi.json"),
		get("/.well-known/mcp.json"), get("/stores/" + host + "/"), get("/"),
		{http.MethodPost, "/api/ucp/validate", `{"profile":{"ucp":{"version":"2026-08-25","services":{},"payment_handlers":{}}}}`},
		tool("store_card", h), tool("precheck", `{"url":"https://`+host+`/"}`), tool("get_agent_facts", h),
		tool("product_data_check", h), tool("agent_commerce_adoption", `{}`), tool("protocol_matrix", `{"protocol":"ucp"}`),
		tool("dataset_info", `{}`), tool("find_agent_ready_stores", `{"category":"apparel","limit":5}`),
		tool("agent_leaderboard", `{}`),
		{http.MethodPost, "/api/ask", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}`},
	}
}

// hostileBodies are the largest bodies each endpoint takes, and an MCP
// batch of n calls.
func hostileBodies(hosts []string, n int) []loadReq {
	pad := make([]string, 0, 70000)
	for i := range 70000 {
		pad = append(pad, strconv.Itoa(i%1000))
	}
	profile := `{"profile":{"ucp":{"version":"2026-08-25","services":{},"payment_handlers":{},"capabilities":{},"pad":[` +
		strings.Join(pad, ",") + `]}}}`
	for len(profile) > 255<<10 {
		pad = pad[:len(pad)*9/10]
		profile = `{"profile":{"ucp":{"version":"2026-08-25","services":{},"payment_handlers":{},"capabilities":{},"pad":[` +
			strings.Join(pad, ",") + `]}}}`
	}
	var results []string
	for i := 1; i <= 100; i++ {
		results = append(results, fmt.Sprintf(`{"id":"svc100-v1-%03d","outcome":"no_cart","evidence_url":"https://evidence.example/%s"}`, i, strings.Repeat("e", 1900)))
	}
	run := `{"spec":"svc-leaderboard-submission/v1","test_set":"SVC-100 v1","agent":{"name":"hostile","path":"browser"},` +
		`"run":{"stopped_before_payment":true,"notes":"` + strings.Repeat("n", 500) + `"},"results":[` + strings.Join(results, ",") + `]}`
	var subHosts []string
	for i := range 50 {
		subHosts = append(subHosts, `"`+strings.Repeat("h", 200)+strconv.Itoa(i)+`.test"`)
	}
	stores := `{"hosts":[` + strings.Join(subHosts, ",") + `],"category":"apparel"}`
	var calls []string
	for i := range n {
		calls = append(calls, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"store_card","arguments":{"host":"%s"}}}`, i, hosts[i%len(hosts)]))
	}
	return []loadReq{
		{http.MethodPost, "/api/ucp/validate", profile},
		{http.MethodPost, "/api/leaderboard/submit", run},
		{http.MethodPost, "/api/stores/submit", stores},
		{http.MethodPost, "/api/ask", "[" + strings.Join(calls, ",") + "]"},
	}
}

// runServeLoad starts a fresh svc serve over a copy of the fixture
// snapshot, loads it for d from conns connections (plus a hostile client
// when hostileConns > 0) and stops it.
func runServeLoad(b *testing.B, bin string, f *readFixture, hosts []string, d time.Duration, conns, hostileConns, batch int) serveLoadResult {
	dir := b.TempDir()
	f.writeTreeTo(b, dir)
	srv := startServe(b, bin, dir)
	defer srv.stop()

	tr := &http.Transport{MaxIdleConnsPerHost: conns + hostileConns, MaxConnsPerHost: conns + hostileConns, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	deadline := time.Now().Add(d)
	var res serveLoadResult
	mixes := make([][]loadReq, len(hosts))
	for i, h := range hosts {
		mixes[i] = loadMix(h)
	}
	var s5, other, failed atomic.Int64
	var non2xx sync.Map // "path status" -> *atomic.Int64
	lat := make([][]time.Duration, conns)
	var wg sync.WaitGroup
	for w := range conns {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 17))
			for i := 0; time.Now().Before(deadline); i++ {
				mix := mixes[r.IntN(len(mixes))]
				k := r.IntN(65536)
				t0 := time.Now()
				lr := mix[r.IntN(len(mix))]
				code, err := doLoad(client, srv.addr, lr, fmt.Sprintf("198.18.%d.%d", k>>8, k&255))
				if err != nil {
					failed.Add(1)
					continue
				}
				lat[w] = append(lat[w], time.Since(t0))
				switch {
				case code >= 500:
					s5.Add(1)
				case code >= 300:
					other.Add(1)
				}
				if code >= 300 {
					key := lr.path
					if i := strings.IndexAny(key, "?"); i > 0 {
						key = key[:i]
					}
					if lr.method == http.MethodPost && lr.path == "/api/ask" {
						key = "MCP " + lr.body[strings.Index(lr.body, `"method"`):][:40]
					}
					n, _ := non2xx.LoadOrStore(key+" "+strconv.Itoa(code), new(atomic.Int64))
					n.(*atomic.Int64).Add(1)
				}
			}
		})
	}
	var hn, hbytes atomic.Int64
	var hmu sync.Mutex
	hstatus := map[string]int{}
	if hostileConns > 0 {
		bodies := hostileBodies(hosts, batch)
		if only := os.Getenv("SVC_LOAD_HOSTILE_ONLY"); only != "" { // one kind of body, to see what costs
			bodies = slices.DeleteFunc(bodies, func(r loadReq) bool { return !slices.Contains(strings.Split(only, ","), r.path) })
		}
		for c := range hostileConns {
			wg.Go(func() {
				for i := c; time.Now().Before(deadline); i++ {
					req := bodies[i%len(bodies)]
					code, err := doLoad(client, srv.addr, req, "203.0.113.66")
					hn.Add(1)
					hbytes.Add(int64(len(req.body)))
					key := req.path + " " + strconv.Itoa(code)
					if err != nil {
						key = req.path + " failed"
					}
					hmu.Lock()
					hstatus[key]++
					hmu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	all := slices.Concat(lat...)
	sum := summarize(all, d)
	res.rps, res.p50, res.p99, res.max = sum.rps, sum.p50, sum.p99, sum.max
	res.status5xx, res.otherNon2xx, res.failed = s5.Load(), other.Load(), failed.Load()
	res.peakRSS = srv.peakRSS()
	var nk []string
	non2xx.Range(func(k, v any) bool {
		nk = append(nk, fmt.Sprintf("%s: %d", k, v.(*atomic.Int64).Load()))
		return true
	})
	slices.Sort(nk)
	res.non2xx = strings.Join(nk, ", ")
	res.hostileN, res.hostileBytes = hn.Load(), hbytes.Load()
	var keys []string
	for k, n := range hstatus {
		keys = append(keys, fmt.Sprintf("%s: %d", k, n))
	}
	slices.Sort(keys)
	res.hostileStatus = strings.Join(keys, ", ")
	srv.stop()
	res.logBytes = srv.logBytes.Load()
	return res
}

// doLoad sends one request and reads the whole answer.
func doLoad(c *http.Client, addr string, lr loadReq, xff string) (int, error) {
	var body io.Reader
	if lr.body != "" {
		body = strings.NewReader(lr.body)
	}
	req, err := http.NewRequest(lr.method, "http://"+addr+lr.path, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-Forwarded-For", xff)
	if lr.method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

// serveProc is a running `svc serve`; its standard error (the log) is
// written to it: counted, and read for the "serving" line's address.
type serveProc struct {
	cmd      *exec.Cmd
	addr     string
	addrc    chan string
	logBytes atomic.Int64
	partial  []byte // the log's unfinished last line
	once     sync.Once
	hwm      atomic.Int64
}

// Write takes the server's log output (exec calls it from one goroutine).
func (p *serveProc) Write(b []byte) (int, error) {
	p.logBytes.Add(int64(len(b)))
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		line := p.partial[:i]
		var m struct{ Msg, Addr string }
		if bytes.Contains(line, []byte(`"serving"`)) && json.Unmarshal(line, &m) == nil && m.Addr != "" {
			select {
			case p.addrc <- m.Addr:
			default:
			}
		}
		p.partial = p.partial[i+1:]
	}
	if len(p.partial) > 1<<20 {
		p.partial = p.partial[:0]
	}
	return len(b), nil
}

// startServe runs bin serve over dir on a loopback port and waits until it
// listens. Its environment holds no model API (no outbound call), and its
// fixture address is a closed loopback port.
func startServe(b *testing.B, bin, dir string) *serveProc {
	args := []string{"--data", dir, "--fixture-addr", "127.0.0.1:1", "serve", "--addr", "127.0.0.1:0", "--trust-proxy", "--ucp-offline", "--stats-every", "10s"}
	if sd := fixtures.UCPSchemaDir(); sd != "" {
		args = append(args, "--ucp-schema-dir", sd)
	}
	cmd := exec.Command(bin, args...)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "SVC_LLM_") && !strings.HasPrefix(e, "SVC_ACCESS_LOG") && !strings.HasPrefix(e, "SVC_DATA") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	p := &serveProc{cmd: cmd, addrc: make(chan string, 1)}
	cmd.Stderr = p
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	addrc := p.addrc
	select {
	case p.addr = <-addrc:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		b.Fatal("svc serve did not start listening in 2 minutes")
	}
	// Wait until it answers.
	for i := 0; i < 100; i++ {
		if resp, err := http.Get("http://" + p.addr + "/api/protocols"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.stop()
	b.Fatal("svc serve does not answer /api/protocols")
	return nil
}

// peakRSS is the server's peak resident set size (Linux), read while it runs.
func (p *serveProc) peakRSS() int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.cmd.Process.Pid), "status"))
	if err != nil {
		return p.hwm.Load()
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			p.hwm.Store(kb << 10)
		}
	}
	return p.hwm.Load()
}

// stop ends the server with SIGINT (a graceful shutdown), or kills it
// after 30 s.
func (p *serveProc) stop() {
	p.once.Do(func() {
		p.peakRSS()
		p.cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				fmt.Fprintf(os.Stderr, "svc serve: %v\n", err)
			}
		case <-time.After(30 * time.Second):
			p.cmd.Process.Kill()
			<-done
		}
	})
}

package pages_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/cmd/cli"
	"svc/fixtures"
)

// The end-to-end tests run the demo (the fixture world, the whole pipeline
// over it, and svc serve) once per test binary, then load every kind of
// page from it: in headless Chromium (TestPagesInChromium) and by
// following every page link the API answers with (TestAPIPageLinks).

type demoServer struct {
	base string // http://127.0.0.1:port
	data string
	err  error

	cancel context.CancelFunc
	done   chan struct{}
	logs   *syncBuffer
}

var (
	demoOnce sync.Once
	demo     demoServer
)

func TestMain(m *testing.M) {
	code := m.Run()
	if demo.cancel != nil {
		demo.cancel()
		select {
		case <-demo.done:
		case <-time.After(30 * time.Second):
		}
		os.RemoveAll(demo.data)
	}
	os.Exit(code)
}

// sharedDemo starts `svc demo` on a free loopback port and waits until the
// API answers.
func sharedDemo(t *testing.T) *demoServer {
	t.Helper()
	demoOnce.Do(startDemo)
	if demo.err != nil {
		t.Fatalf("demo: %v\n%s", demo.err, demo.logs.tail(4000))
	}
	return &demo
}

func startDemo() {
	demo.logs = &syncBuffer{}
	demo.data, demo.err = os.MkdirTemp("", "svc-pages-demo-")
	if demo.err != nil {
		return
	}
	// --no-shop: the shop stage adds minutes; its pages are tested in serve
	// (TestStorePageShowsWhatTheShopperSaw) and pipeline (TestShopStageBrowser).
	args := []string{"demo", "--no-shop", "--data", demo.data, "--addr", "127.0.0.1:0", "--ucp-offline"}
	if dir := fixtures.UCPSchemaDir(); dir != "" {
		args = append(args, "--ucp-schema-dir", dir)
	}
	ctx, cancel := context.WithCancel(context.Background())
	demo.cancel, demo.done = cancel, make(chan struct{})
	pr, pw := io.Pipe()
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		re := regexp.MustCompile(`API ready on (http://\S+)`)
		for sc.Scan() {
			demo.logs.Write([]byte(sc.Text() + "\n"))
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				ready <- m[1]
			}
		}
	}()
	exited := make(chan int, 1)
	go func() {
		defer close(demo.done)
		code := cli.Run(ctx, args, pw, demo.logs)
		pw.Close()
		exited <- code
	}()
	select {
	case demo.base = <-ready:
	case code := <-exited:
		demo.err = fmt.Errorf("svc demo exited with code %d before the API was ready", code)
	case <-time.After(5 * time.Minute):
		demo.err = fmt.Errorf("svc demo: the API was not ready within 5 minutes")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) tail(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	str := s.b.String()
	if len(str) > n {
		str = str[len(str)-n:]
	}
	return str
}

func (d *demoServer) get(t *testing.T, path string) (*http.Response, []byte) {
	t.Helper()
	c := &http.Client{Timeout: 60 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(d.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp, body
}

func (d *demoServer) getJSON(t *testing.T, path string, v any) []byte {
	t.Helper()
	resp, body := d.get(t, path)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if v != nil {
		if err := json.Unmarshal(body, v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	return body
}

// storesByVerdict reads the published store_answers: host per verdict, of
// the stores the directory lists.
// answeredStores lists the stores with the fullest answers: those agents
// can buy at, then, where the run has too few (the demo without UCP
// schemas runs no buy lane to the cart with --no-shop), those whose
// catalog answered.
func answeredStores(t *testing.T, byVerdict map[string][]string, n int) []string {
	t.Helper()
	hs := append(append([]string(nil), byVerdict["agents_can_buy"]...), byVerdict["catalog_only"]...)
	if len(byVerdict["agents_can_buy"]) < n {
		t.Logf("%d stores with verdict agents_can_buy (no UCP schemas and no shop stage in this demo): catalog_only stores stand in", len(byVerdict["agents_can_buy"]))
	}
	if len(hs) < n {
		t.Fatalf("the demo has %d stores with verdict agents_can_buy or catalog_only, want %d", len(hs), n)
	}
	return hs
}

func (d *demoServer) storesByVerdict(t *testing.T) map[string][]string {
	t.Helper()
	_, body := d.get(t, "/data/latest/store_answers.csv")
	recs, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("store_answers.csv: %v", err)
	}
	col := map[string]int{}
	for i, c := range recs[0] {
		col[c] = i
	}
	out := map[string][]string{}
	for _, r := range recs[1:] {
		if r[col["source"]] != "seed" {
			continue
		}
		out[r[col["verdict"]]] = append(out[r[col["verdict"]]], r[col["host"]])
	}
	return out
}

package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"svc/cmd/cli"
	"svc/datasets/svc100"
	"svc/fixtures"
	"svc/pipeline/fetch"
	"svc/pipeline/leaderboard"
	"svc/serve"
)

// The durability test runs the server as a child process (this test binary,
// re-executed into TestSubmissionServerChild), sends store and leaderboard
// submissions from several goroutines, and kills the child with SIGKILL at
// a random moment, 20 times. After every restart each submission that was
// answered with a 2xx must still be there: a leaderboard run answers 200
// with its id, an accepted host answers already_listed. At the end one
// pipeline run over the state must list every accepted host with
// source=submitted and every acknowledged run in the leaderboard's
// unverified section, and no published file may hold a contact.

const (
	envChildData    = "SVC_TEST_SUBMIT_CHILD_DATA"
	envChildFixture = "SVC_TEST_SUBMIT_CHILD_FIXTURE"
	envChildCA      = "SVC_TEST_SUBMIT_CHILD_CA"
	loadContact     = "load-contact-9d1e@agent.example"
	kills           = 20
)

// TestSubmissionServerChild is the server the durability test starts and
// kills; it does nothing unless started by that test.
func TestSubmissionServerChild(t *testing.T) {
	data := os.Getenv(envChildData)
	if data == "" {
		t.Skip("the durability test's child server")
	}
	ca, err := os.ReadFile(os.Getenv(envChildCA))
	if err != nil {
		t.Fatal(err)
	}
	client, err := fetch.New(fetch.Options{FixtureAddr: os.Getenv(envChildFixture), FixtureCA: ca, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	s, err := serve.New(serve.Config{DataDir: data, State: os.Getenv(envReplicaState), Client: client, TrustProxy: true})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("LISTEN %s\n", ln.Addr())
	t.Fatal(http.Serve(ln, s.Handler())) // until killed
}

// child is one life of the server.
type child struct {
	cmd  *exec.Cmd
	base string
}

func startChild(t *testing.T, data, fixtureAddr, caPath string) *child {
	t.Helper()
	return startServerTest(t, "TestSubmissionServerChild", envChildData+"="+data, envChildFixture+"="+fixtureAddr, envChildCA+"="+caPath)
}

// startServerTest re-executes this test binary into the test named, with
// env added, and waits for the address it prints as "LISTEN addr".
func startServerTest(t *testing.T, name string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "LISTEN "); ok {
				addr <- a
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			cmd.Wait()
			t.Fatalf("the child server did not start: %s", stderr.String())
		}
		return &child{cmd: cmd, base: "http://" + a}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the child server did not start in 30 s: %s", stderr.String())
	}
	return nil
}

func (c *child) kill(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait()
}

// acks are the submissions the server answered with a 2xx.
type acks struct {
	mu    sync.Mutex
	runs  map[string][]byte // id -> a body of the run
	hosts map[string]bool   // hosts answered accepted
}

// loadClient sends requests as a new network each time (the child trusts
// X-Forwarded-For), so the daily limits never get in the way.
type loadClient struct {
	hc  *http.Client
	net atomic.Uint32
}

func (c *loadClient) post(base, path string, body []byte) (int, []byte, error) {
	req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	i := c.net.Add(1)
	req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", byte(i>>16), byte(i>>8), byte(i)))
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func loadRun(name string, r *rand.Rand) []byte {
	outcomes := leaderboard.Outcomes
	sub := leaderboard.Submission{
		Spec: svc100.Spec, TestSet: svc100.TestSet,
		Agent:   leaderboard.Agent{Name: name, Path: "browser"},
		Run:     leaderboard.Run{StoppedBeforePayment: true},
		Contact: loadContact,
	}
	for _, i := range r.Perm(svc100.Size)[:10+r.IntN(20)] {
		sub.Results = append(sub.Results, leaderboard.Result{ID: svc100.ID(i + 1), Outcome: outcomes[r.IntN(len(outcomes))]})
	}
	b, _ := json.Marshal(sub)
	return b
}

func TestSubmissionsSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills a server 20 times, then runs the pipeline")
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 7))

	world := fixtures.Generate(1, 700)
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tmp := t.TempDir()
	caPath := filepath.Join(tmp, "ca.pem")
	if err := os.WriteFile(caPath, srv.CAPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(tmp, "data")
	var pool []string // hosts a submission accepts
	for _, st := range world.Stores {
		ok := true
		for _, tr := range st.Traits {
			for _, p := range []string{"parked:", "redirect:other_brand", "unreachable:"} {
				ok = ok && !strings.HasPrefix(tr, p)
			}
		}
		if ok {
			pool = append(pool, st.Host)
		}
	}
	// The crawl's CSV lists three of them: it wins over their submission.
	csvHosts := pool[:3]

	got := &acks{runs: map[string][]byte{}, hosts: map[string]bool{}}
	var checked struct { // what the last restart verified
		runs  map[string]bool
		hosts map[string]bool
	}
	checked.runs, checked.hosts = map[string]bool{}, map[string]bool{}
	lc := &loadClient{}
	var loadErrs atomic.Int64
	start := time.Now()

	verify := func(base string, all bool) {
		t.Helper()
		got.mu.Lock()
		var runs [][2]string
		for id, b := range got.runs {
			if all || !checked.runs[id] {
				runs = append(runs, [2]string{id, string(b)})
			}
		}
		var hosts []string
		for h := range got.hosts {
			if all || !checked.hosts[h] {
				hosts = append(hosts, h)
			}
		}
		got.mu.Unlock()
		var wg sync.WaitGroup
		work := make(chan [2]string)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range work {
					code, body, err := lc.post(base, "/api/leaderboard/submit", []byte(r[1]))
					var rc serve.LeaderboardReceipt
					json.Unmarshal(body, &rc)
					if err != nil || code != 200 || rc.ID != r[0] || !rc.Duplicate {
						t.Errorf("run %s after restart: %d %s %v", r[0], code, body, err)
					}
				}
			}()
		}
		for _, r := range runs {
			work <- r
		}
		close(work)
		wg.Wait()
		for len(hosts) > 0 {
			n := min(len(hosts), serve.MaxSubmitHosts)
			body, _ := json.Marshal(serve.StoreSubmission{Hosts: hosts[:n]})
			code, resp, err := lc.post(base, "/api/stores/submit", body)
			var res serve.StoreSubmitResult
			json.Unmarshal(resp, &res)
			if err != nil || code != 200 || res.AlreadyListed != n {
				t.Errorf("accepted hosts after restart: %d %s %v", code, resp, err)
			}
			hosts = hosts[n:]
		}
		got.mu.Lock()
		for id := range got.runs {
			checked.runs[id] = true
		}
		for h := range got.hosts {
			checked.hosts[h] = true
		}
		got.mu.Unlock()
	}

	var serial atomic.Int64
	roundsAccepting := make([]bool, kills) // under got.mu
	for round := range kills {
		c := startChild(t, data, srv.Addr(), caPath)
		lc.hc = &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{}}
		verify(c.base, false)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for g := range 6 {
			r := rand.New(rand.NewPCG(uint64(seed), uint64(round*100+g)))
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if r.IntN(2) == 0 {
						body := loadRun(fmt.Sprintf("load agent %d", serial.Add(1)), r)
						code, resp, err := lc.post(c.base, "/api/leaderboard/submit", body)
						if err != nil {
							loadErrs.Add(1)
							time.Sleep(5 * time.Millisecond)
							continue
						}
						var rc serve.LeaderboardReceipt
						if (code == 201 || code == 200) && json.Unmarshal(resp, &rc) == nil {
							got.mu.Lock()
							got.runs[rc.ID] = body
							got.mu.Unlock()
						} else {
							t.Errorf("run: %d %s", code, resp)
						}
						continue
					}
					cats := serve.CategorySlugs()
					req := serve.StoreSubmission{Category: cats[r.IntN(len(cats))]}
					for range 1 + r.IntN(3) {
						req.Hosts = append(req.Hosts, pool[r.IntN(len(pool))])
					}
					body, _ := json.Marshal(req)
					code, resp, err := lc.post(c.base, "/api/stores/submit", body)
					if err != nil {
						loadErrs.Add(1)
						time.Sleep(5 * time.Millisecond)
						continue
					}
					var res serve.StoreSubmitResult
					if code != 200 || json.Unmarshal(resp, &res) != nil {
						t.Errorf("stores: %d %s", code, resp)
						continue
					}
					got.mu.Lock()
					for _, h := range res.Results {
						if h.Outcome == serve.OutcomeAccepted {
							got.hosts[h.Host] = true
							roundsAccepting[round] = true
						}
					}
					got.mu.Unlock()
					time.Sleep(time.Duration(r.IntN(80)) * time.Millisecond) // stores come slower than runs
				}
			}()
		}
		time.Sleep(time.Duration(50+rng.IntN(400)) * time.Millisecond)
		c.kill(t)
		close(stop)
		wg.Wait()
		lc.hc.CloseIdleConnections()
		if t.Failed() {
			t.FailNow()
		}
	}
	// The last life: everything acknowledged in any earlier one is there.
	c := startChild(t, data, srv.Addr(), caPath)
	lc.hc = &http.Client{Timeout: 20 * time.Second}
	verify(c.base, true)
	c.kill(t)
	got.mu.Lock()
	n := 0
	for _, a := range roundsAccepting {
		if a {
			n++
		}
	}
	t.Logf("%d kills in %s: %d runs and %d hosts acknowledged (hosts accepted in %d lives), %d requests failed on a killed server",
		kills, time.Since(start).Round(time.Millisecond), len(got.runs), len(got.hosts), n, loadErrs.Load())
	got.mu.Unlock()
	if len(got.runs) < kills || len(got.hosts) < 10 {
		t.Fatalf("too little load to mean anything: %d runs, %d hosts", len(got.runs), len(got.hosts))
	}

	// One pipeline run over the state: the snapshot lists every accepted
	// host (source=submitted, or the CSV's own source) and every run.
	storesCSV := filepath.Join(tmp, "stores.csv")
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.Write([]string{"host", "name", "category", "source"})
	for _, h := range csvHosts {
		cw.Write([]string{h, "Listed", "home", "seed"})
	}
	cw.Flush()
	os.WriteFile(storesCSV, buf.Bytes(), 0o644)
	t.Setenv("SVC_UCP_OFFLINE", "1")
	args := []string{"run", "--data", data, "--stores", storesCSV, "--run", "after-kills", "--agent-paths=false", "--no-shop",
		"--fixture-addr", srv.Addr(), "--fixture-ca", caPath}
	if d := fixtures.UCPSchemaDir(); d != "" {
		args = append(args, "--ucp-schema-dir", d)
	}
	pstart := time.Now()
	var out, errOut bytes.Buffer
	if code := cli.Run(context.Background(), args, &out, &errOut); code != 0 {
		t.Fatalf("svc run: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	t.Logf("pipeline over the state in %s:\n%s", time.Since(pstart).Round(time.Millisecond), out.String())

	latest := filepath.Join(data, "public", "data", "latest")
	f, err := os.Open(filepath.Join(latest, "stores.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	source := map[string]string{}
	for _, r := range rows[1:] {
		source[r[col["host"]]] = r[col["source"]]
	}
	for h := range got.hosts {
		want := "submitted"
		for _, c := range csvHosts {
			if h == c {
				want = "seed"
			}
		}
		if source[h] != want {
			t.Errorf("accepted host %s: source %q in the snapshot, want %s", h, source[h], want)
		}
	}
	var board struct {
		Unverified struct {
			Count int `json:"count"`
			Runs  []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"runs"`
		} `json:"unverified"`
	}
	b, err := os.ReadFile(filepath.Join(data, "public", "api", "leaderboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &board); err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, r := range board.Unverified.Runs {
		listed[r.ID] = r.Status
	}
	for id := range got.runs {
		if listed[id] != "unverified" {
			t.Errorf("acknowledged run %s: %q in the leaderboard's unverified section", id, listed[id])
		}
	}
	// Runs cut off by a kill after their fsync may be there too; nothing else.
	if board.Unverified.Count < len(got.runs) || board.Unverified.Count > len(got.runs)+kills*6 {
		t.Errorf("unverified section holds %d runs for %d acknowledged", board.Unverified.Count, len(got.runs))
	}
	// The contact never reaches a published file.
	filepath.WalkDir(filepath.Join(data, "public"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(loadContact)) {
			t.Errorf("%s holds a contact", p)
		}
		return nil
	})
}

package serve_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/inbox"
	"svc/pipeline/inbox/pgtest"
	"svc/serve"
)

// Two svc serve replicas as two processes (this test binary re-executed
// into TestSubmissionServerChild) on one PostgreSQL database: store
// submissions go to both, one is SIGKILLed mid-load, and every host either
// answered accepted must be listed on the survivor and in the records the
// pipeline reads.

// envReplicaState is the child server's --state.
const envReplicaState = "SVC_TEST_REPLICA_STATE"

func startReplica(t *testing.T, state, fixtureAddr, caPath string) *child {
	t.Helper()
	c := startServerTest(t, "TestSubmissionServerChild", envReplicaState+"="+state, envChildData+"="+t.TempDir(),
		envChildFixture+"="+fixtureAddr, envChildCA+"="+caPath)
	t.Cleanup(func() { c.cmd.Process.Kill(); c.cmd.Wait() })
	return c
}

func TestReplicaKilledLosesNoAckedWrite(t *testing.T) {
	state := pgtest.URL(t)
	world := fixtures.Generate(1, 400)
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	caPath := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caPath, srv.CAPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	var pool []string // hosts a submission accepts
	for _, st := range world.Stores {
		ok := true
		for _, tr := range st.Traits {
			for _, p := range []string{"parked:", "redirect:", "unreachable:", "block:", "soft404:", "slow"} {
				ok = ok && !strings.HasPrefix(tr, p)
			}
		}
		if ok {
			pool = append(pool, st.Host)
		}
	}
	a := startReplica(t, state, srv.Addr(), caPath)
	b := startReplica(t, state, srv.Addr(), caPath)

	lc := &loadClient{hc: &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{}}}
	var mu sync.Mutex
	acked := map[string]bool{}
	var aAcks, killedErrs int
	next := make(chan string)
	go func() {
		for _, h := range pool {
			next <- h
		}
		close(next)
	}()
	killed := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range next {
				base := []string{a.base, b.base}[g%2]
				body, _ := json.Marshal(serve.StoreSubmission{URL: h})
				code, resp, err := lc.post(base, "/api/stores/submit", body)
				if err != nil && base == a.base {
					// The load balancer sends the request to the survivor.
					mu.Lock()
					killedErrs++
					mu.Unlock()
					base = b.base
					code, resp, err = lc.post(base, "/api/stores/submit", body)
				}
				var res serve.StoreSubmitResult
				if err != nil || code != 200 || json.Unmarshal(resp, &res) != nil {
					t.Errorf("submit %s to %s: %d %s %v", h, base, code, resp, err)
					continue
				}
				if res.Accepted == 1 {
					mu.Lock()
					acked[h] = true
					if base == a.base {
						select {
						case <-killed:
						default:
							aAcks++
						}
					}
					mu.Unlock()
				}
			}
		}()
	}
	// Kill a once it has acknowledged some submissions, mid-load.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := aAcks
		mu.Unlock()
		if n >= 10 || time.Now().After(deadline) {
			break
		}
	}
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	close(killed)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d hosts acknowledged (%d by a before its kill), %d requests failed on the killed replica", len(acked), aAcks, killedErrs)
	if aAcks < 10 || killedErrs == 0 {
		t.Fatalf("the kill did not land mid-load: %d acks by a, %d failed requests", aAcks, killedErrs)
	}

	// Every acknowledged host is already_listed on the survivor ...
	var hosts []string
	for h := range acked {
		hosts = append(hosts, h)
	}
	for len(hosts) > 0 {
		n := min(len(hosts), serve.MaxSubmitHosts)
		body, _ := json.Marshal(serve.StoreSubmission{Hosts: hosts[:n]})
		code, resp, err := lc.post(b.base, "/api/stores/submit", body)
		var res serve.StoreSubmitResult
		if json.Unmarshal(resp, &res); err != nil || code != 200 || res.AlreadyListed != n {
			t.Fatalf("acknowledged hosts on the survivor: %d %s %v", code, resp, err)
		}
		hosts = hosts[n:]
	}
	// ... and in the records the pipeline reads.
	pg, err := inbox.OpenPostgres(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	inRecords := map[string]int{}
	err = pg.Records(context.Background(), inbox.TypeStoreSubmission, time.Time{}, func(r inbox.Record) error {
		var s inbox.StoreSubmission
		if err := json.Unmarshal(r.Data, &s); err != nil {
			return err
		}
		for _, h := range s.Hosts {
			inRecords[h.Host]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for h := range acked {
		if inRecords[h] != 1 {
			t.Errorf("acknowledged host %s is in %d submission records, want 1", h, inRecords[h])
		}
	}
}

func TestReplicasShareLeaderboardRuns(t *testing.T) {
	state := pgtest.URL(t)
	var bases []string
	for range 2 {
		s, err := serve.New(serve.Config{DataDir: t.TempDir(), State: state, TrustProxy: true})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(s.Handler())
		t.Cleanup(func() { ts.Close(); s.Close() })
		bases = append(bases, ts.URL)
	}
	lc := &loadClient{hc: &http.Client{Timeout: 20 * time.Second}}
	body := loadRun("replica agent", rand.New(rand.NewPCG(1, 2)))
	var first, again serve.LeaderboardReceipt
	code, resp, err := lc.post(bases[0], "/api/leaderboard/submit", body)
	if json.Unmarshal(resp, &first); err != nil || code != 201 || first.ID == "" || first.Duplicate {
		t.Fatalf("first replica: %d %s %v", code, resp, err)
	}
	code, resp, err = lc.post(bases[1], "/api/leaderboard/submit", body)
	if json.Unmarshal(resp, &again); err != nil || code != 200 || !again.Duplicate || again.ID != first.ID {
		t.Fatalf("the second replica took a run the first accepted: %d %s %v", code, resp, err)
	}
	pg, err := inbox.OpenPostgres(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	n := 0
	if err := pg.Records(context.Background(), inbox.TypeLeaderboardSubmission, time.Time{}, func(inbox.Record) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("%d leaderboard records, want 1 (%v)", n, err)
	}
}

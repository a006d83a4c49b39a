package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"svc/datasets/svc100"
	"svc/fixtures"
	"svc/pipeline/fetch"
	"svc/pipeline/inbox"
	"svc/pipeline/inbox/pgtest"
	"svc/pipeline/leaderboard"
)

// The fault of issue 36: PostgreSQL restarted (pg_ctl stop -m fast, later
// -m immediate, a crash) while two replicas take store and leaderboard
// submissions from six clients. During each outage every write must answer
// 503 with the error body and Retry-After, promptly; after the restart both
// replicas take writes again without being restarted themselves, their
// sync loops list what the other accepted, and every write answered 2xx is
// in the database exactly once. A write answered 503 is sent again later
// (as a client would), so one whose commit landed before the connection
// broke shows as already_listed or duplicate, never twice.

// outageBound is how long a write may take to answer while the database is
// down, and recoverBound how soon after it is back each replica must
// acknowledge a write.
const (
	outageBound  = 5 * time.Second
	recoverBound = 15 * time.Second
)

// pgWrite is one write a client sends until it is acknowledged: a store
// submission of host, or a leaderboard run of agent.
type pgWrite struct {
	host  string
	agent string
	body  string
}

// pgAnswer is one answer the clients saw.
type pgAnswer struct {
	replica  int
	write    pgWrite
	code     int
	body     string
	retry    string
	sent     time.Time
	took     time.Duration
	accepted bool   // a store submission's host was accepted (or already listed: an earlier try committed)
	runID    string // a leaderboard run's id (201, or 200 duplicate)
}

func TestReplicasSurvivePostgresRestart(t *testing.T) {
	cluster := pgtest.NewCluster(t)
	state := cluster.Database("svc_fault")
	world := fixtures.Generate(1, 800)
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{Slow: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client, err := fetch.New(fetch.Options{FixtureAddr: srv.Addr(), FixtureCA: srv.CAPEM(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string // hosts a submission accepts
	for _, st := range world.Stores {
		if out, _ := expectedOutcome(st); out == OutcomeAccepted && !hasTrait(st, "block:") && !hasTrait(st, "slow") {
			hosts = append(hosts, st.Host)
		}
	}
	cfg := Config{State: state, TrustProxy: true, Client: client, Sync: 200 * time.Millisecond}
	ca, cb := cfg, cfg
	ca.DataDir, cb.DataDir = t.TempDir(), t.TempDir()
	replicas := []*testServer{newTestServer(t, ca), newTestServer(t, cb)}

	// The writes: the hosts, and leaderboard runs made as they are needed,
	// interleaved; a write answered 503 (or not at all) is sent again.
	fresh := make(chan pgWrite, len(hosts))
	for _, h := range hosts {
		fresh <- pgWrite{host: h, body: mustJSON(t, StoreSubmission{URL: h})}
	}
	retry := make(chan pgWrite, 1<<16)
	var runs atomic.Int64
	newRun := func() pgWrite {
		i := int(runs.Add(1))
		sub := leaderboard.Submission{
			Spec: svc100.Spec, TestSet: svc100.TestSet,
			Agent:   leaderboard.Agent{Name: fmt.Sprintf("restart agent %d", i), Path: "browser"},
			Run:     leaderboard.Run{StoppedBeforePayment: true},
			Contact: privateContact,
		}
		for j := range 10 {
			sub.Results = append(sub.Results, leaderboard.Result{ID: svc100.ID(i%80 + j + 1), Outcome: leaderboard.Outcomes[(i+j)%len(leaderboard.Outcomes)]})
		}
		b, _ := json.Marshal(sub)
		return pgWrite{agent: sub.Agent.Name, body: string(b)}
	}
	next := func(k int) pgWrite {
		select {
		case w := <-retry:
			return w
		default:
		}
		if k%3 == 0 {
			select {
			case w := <-fresh:
				return w
			default:
			}
		}
		return newRun()
	}

	hc := &http.Client{Timeout: 30 * time.Second}
	var (
		mu      sync.Mutex
		answers []pgAnswer
		addr    atomic.Int64 // one network per request: the daily quotas stay out of the way
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	send := func(g int, w pgWrite) pgAnswer {
		n := addr.Add(1)
		a := pgAnswer{replica: g % 2, write: w, sent: time.Now()}
		path := "/api/stores/submit"
		if w.agent != "" {
			path = "/api/leaderboard/submit"
		}
		req, _ := http.NewRequest(http.MethodPost, replicas[a.replica].ts.URL+path, strings.NewReader(w.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", n>>16&255, n>>8&255, n&255))
		resp, err := hc.Do(req)
		a.took = time.Since(a.sent)
		if err != nil {
			a.body = err.Error()
			return a
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		a.code, a.body, a.retry = resp.StatusCode, string(b), resp.Header.Get("Retry-After")
		switch {
		case w.host != "" && a.code == 200:
			var res StoreSubmitResult
			if json.Unmarshal(b, &res) == nil && len(res.Results) == 1 {
				o := res.Results[0].Outcome
				a.accepted = o == OutcomeAccepted || o == OutcomeAlreadyListed
			}
		case w.agent != "" && (a.code == 201 || a.code == 200):
			var rc LeaderboardReceipt
			if json.Unmarshal(b, &rc) == nil {
				a.runID = rc.ID
			}
		}
		return a
	}
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := g; ; k++ {
				select {
				case <-stop:
					return
				case <-time.After(40 * time.Millisecond): // about 150 writes a second in all
				}
				w := next(k)
				a := send(g, w)
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
				if a.code == http.StatusServiceUnavailable || a.code == 0 {
					retry <- w // sent again later, as a client would
				}
			}
		}()
	}
	// acks counts the writes replica r acknowledged that were sent after
	// since.
	acks := func(r int, since time.Time) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, a := range answers {
			if a.replica == r && !a.sent.Before(since) && (a.accepted || a.runID != "") {
				n++
			}
		}
		return n
	}
	waitAcks := func(since time.Time, n int, bound time.Duration) (time.Duration, bool) {
		for deadline := time.Now().Add(bound); ; time.Sleep(10 * time.Millisecond) {
			if acks(0, since) >= n && acks(1, since) >= n {
				return time.Since(since), true
			}
			if time.Now().After(deadline) {
				return bound, false
			}
		}
	}
	type outage struct{ down, up time.Time }
	var outages []outage
	begin := time.Now()
	if _, ok := waitAcks(begin, 10, 30*time.Second); !ok {
		close(stop)
		wg.Wait()
		t.Fatalf("the replicas acknowledged too few writes before any fault: %d and %d", acks(0, begin), acks(1, begin))
	}
	for _, mode := range []string{"fast", "immediate"} {
		cluster.Stop(mode)
		down := time.Now()
		time.Sleep(1500 * time.Millisecond) // writes meet the outage, the sync loops too
		up := time.Now()
		cluster.Start()
		outages = append(outages, outage{down, up})
		started := time.Now()
		took, ok := waitAcks(started, 10, recoverBound)
		if !ok {
			t.Errorf("after pg_ctl stop -m %s and start, the replicas acknowledged %d and %d writes in %s", mode, acks(0, up), acks(1, up), recoverBound)
		}
		mu.Lock()
		failed := 0
		for _, a := range answers {
			if !a.sent.Before(started) && a.code != 200 && a.code != 201 {
				failed++
			}
		}
		mu.Unlock()
		t.Logf("stop -m %s: down %s; both replicas acknowledged 10 writes %s after the start, %d writes sent after it failed",
			mode, up.Sub(down).Round(time.Millisecond), took.Round(time.Millisecond), failed)
	}
	close(stop)
	wg.Wait()

	// During each outage: 503 with the error body and Retry-After, soon.
	mu.Lock()
	defer mu.Unlock()
	var during, acked503 int
	var slowest time.Duration
	hostAcked, runAcked := map[string]bool{}, map[string]string{} // host; agent -> run id
	for _, a := range answers {
		if a.accepted {
			hostAcked[a.write.host] = true
		}
		if a.runID != "" {
			if id, ok := runAcked[a.write.agent]; ok && id != a.runID {
				t.Errorf("run %q acknowledged as %s and as %s", a.write.agent, id, a.runID)
			}
			runAcked[a.write.agent] = a.runID
		}
		in := false
		for _, o := range outages {
			in = in || (!a.sent.Before(o.down) && !a.sent.Add(a.took).After(o.up))
		}
		if !in {
			if a.code != 200 && a.code != 201 && a.code != http.StatusServiceUnavailable {
				t.Errorf("replica %d answered %d to %s%s: %.300s", a.replica, a.code, a.write.host, a.write.agent, a.body)
			}
			continue
		}
		during++
		slowest = max(slowest, a.took)
		if a.code != http.StatusServiceUnavailable {
			acked503++
			t.Errorf("during the outage replica %d answered %d to %s%s, want 503: %.300s", a.replica, a.code, a.write.host, a.write.agent, a.body)
			continue
		}
		var e ErrorBody
		if json.Unmarshal([]byte(a.body), &e) != nil || e.Error.Code != "unavailable" || e.Error.Message == "" {
			t.Errorf("a 503 of the outage without the error body: %.300s", a.body)
		}
		if a.retry == "" {
			t.Errorf("a 503 of the outage without Retry-After: %.300s", a.body)
		}
		if a.took > outageBound {
			t.Errorf("a write took %s to answer during the outage (bound %s)", a.took, outageBound)
		}
	}
	t.Logf("%d answers, %d during the outages (slowest %s), %d hosts and %d runs acknowledged",
		len(answers), during, slowest.Round(time.Millisecond), len(hostAcked), len(runAcked))
	if during < 10 {
		t.Fatalf("only %d writes met the outages: the test shows nothing", during)
	}

	// Every acknowledged write is in the database exactly once.
	pg, err := inbox.OpenPostgres(context.Background(), state)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	hostRecs, runRecs := map[string]int{}, map[string]int{}
	err = pg.Replay(context.Background(), func(r inbox.Record) error {
		switch r.Type {
		case inbox.TypeStoreSubmission:
			var s inbox.StoreSubmission
			if err := json.Unmarshal(r.Data, &s); err != nil {
				return err
			}
			for _, h := range s.Hosts {
				hostRecs[h.Host]++
			}
		case inbox.TypeLeaderboardSubmission:
			var s inbox.LeaderboardSubmission
			if err := json.Unmarshal(r.Data, &s); err != nil {
				return err
			}
			runRecs[s.ID]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for h := range hostAcked {
		if hostRecs[h] != 1 {
			t.Errorf("acknowledged host %s is in %d submission records, want 1", h, hostRecs[h])
		}
	}
	for agent, id := range runAcked {
		if runRecs[id] != 1 {
			t.Errorf("acknowledged run %s (%s) is in %d records, want 1", id, agent, runRecs[id])
		}
	}

	// Both replicas' sync loops came back: each lists every acknowledged
	// write, whichever replica took it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var missing []string
		for i, r := range replicas {
			ids := map[string]bool{}
			r.subs.runMu.Lock()
			for _, run := range r.subs.runs {
				ids[run.ID] = true
			}
			r.subs.runMu.Unlock()
			for _, id := range runAcked {
				if !ids[id] {
					missing = append(missing, fmt.Sprintf("replica %d: run %s", i, id))
				}
			}
			for h := range hostAcked {
				if !r.subs.isAccepted(h) {
					missing = append(missing, fmt.Sprintf("replica %d: host %s", i, h))
				}
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d acknowledged writes are not listed 10 s after the last: %s", len(missing), strings.Join(missing[:min(len(missing), 10)], ", "))
		}
	}
}

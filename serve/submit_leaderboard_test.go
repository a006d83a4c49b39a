package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/datasets/svc100"
	"svc/pipeline/inbox"
	"svc/pipeline/leaderboard"
)

const privateContact = "secret-contact-7f3a@agent.example"

// run returns a valid submission as an object tree a test can change.
func run(t *testing.T, n int) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(exampleRun(n), &m); err != nil {
		t.Fatal(err)
	}
	m["contact"] = privateContact
	return m
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// syncBuffer is a log sink the handlers write to from many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLeaderboardSubmitInfo(t *testing.T) {
	ts := newTestServer(t, Config{BaseURL: "https://svc.example"})
	resp, body := ts.get(t, "/api/leaderboard/submit")
	if resp.StatusCode != 200 {
		t.Fatalf("GET: %d %s", resp.StatusCode, body)
	}
	var info SubmitInfo
	if err := json.Unmarshal([]byte(body), &info); err != nil {
		t.Fatal(err)
	}
	if info.Method != "POST" || info.Spec != svc100.Spec || info.MCPTool != "submit_leaderboard_run" ||
		info.Schema != "https://svc.example/data/svc-100/v1/submission.schema.json" ||
		info.URL != "https://svc.example/api/leaderboard/submit" || !strings.Contains(info.ExampleNote, "at least 10") {
		t.Errorf("info %+v", info)
	}
	// The example is a real submission cut to 2 results: its only problem
	// is the number of results.
	_, err := leaderboard.Parse(info.Example)
	var ie *leaderboard.InvalidError
	if !errors.As(err, &ie) || len(ie.Problems) != 1 || ie.Problems[0].Path != "$.results" {
		t.Errorf("example: %v", err)
	}
	if resp, body := ts.get(t, "/api/leaderboard"); resp.StatusCode != 503 {
		t.Errorf("the board itself still needs a snapshot: %d %s", resp.StatusCode, body)
	}
}

func TestLeaderboardSubmit(t *testing.T) {
	dir := t.TempDir()
	var logs syncBuffer
	cfg := Config{DataDir: dir, TrustProxy: true, Log: slog.New(slog.NewJSONHandler(&logs, nil))}
	ts := newTestServer(t, cfg)
	post := func(addr, body string) (int, string) { return ts.postJSON(t, "/api/leaderboard/submit", addr, body) }
	receipt := func(body string) LeaderboardReceipt {
		t.Helper()
		var r LeaderboardReceipt
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		return r
	}
	var answers []string

	first := run(t, 10)
	code, body := post("198.51.100.7", mustJSON(t, first))
	answers = append(answers, body)
	if code != 201 {
		t.Fatalf("new run: %d %s", code, body)
	}
	r1 := receipt(body)
	// No snapshot yet: kept, not listed (TestLeaderboardListsRunsAtOnce
	// has the listing).
	want := LeaderboardReceipt{Receipt: leaderboard.Receipt{OK: true, ID: r1.ID, Status: "unverified", N: 10, CartSuccesses: 4},
		APIURL: "/api/leaderboard", Note: r1.Note}
	if diff := cmp.Diff(want, r1); diff != "" || !strings.HasPrefix(r1.ID, "sub-") || !strings.Contains(r1.Note, "not listed yet") {
		t.Errorf("receipt (-want +got):\n%s", diff)
	}

	// Duplicates: the same body; the same run with other times, notes,
	// steps, contact and agent URL, results reordered, the agent's name in
	// another case and spacing. Each answers 200 with the first id.
	again := run(t, 10)
	again["contact"] = "someone-else@example.com"
	again["run"].(map[string]any)["notes"] = "re-sent"
	again["run"].(map[string]any)["started_at"] = "2026-11-21T09:00:00Z"
	again["run"].(map[string]any)["finished_at"] = "2026-11-21T10:00:00Z"
	again["agent"].(map[string]any)["name"] = "  example   SHOPPER "
	again["agent"].(map[string]any)["url"] = "https://other.example/"
	res := again["results"].([]any)
	res[0], res[9] = res[9], res[0]
	res[1].(map[string]any)["steps"] = 99
	for _, b := range []string{mustJSON(t, first), mustJSON(t, again)} {
		code, body = post("198.51.100.8", b)
		answers = append(answers, body)
		if r := receipt(body); code != 200 || r.ID != r1.ID || !r.Duplicate || r.N != 10 || r.Status != "unverified" {
			t.Errorf("duplicate: %d %s", code, body)
		}
	}
	// Not duplicates: another outcome at one store, another version.
	other := run(t, 10)
	other["results"].([]any)[1].(map[string]any)["outcome"] = "added_to_cart"
	v2 := run(t, 10)
	v2["agent"].(map[string]any)["version"] = "2.0"
	ids := map[string]bool{r1.ID: true}
	for _, b := range []map[string]any{other, v2} {
		code, body = post("198.51.100.7", mustJSON(t, b))
		answers = append(answers, body)
		if r := receipt(body); code != 201 || ids[r.ID] {
			t.Errorf("distinct run: %d %s", code, body)
		}
		ids[receipt(body).ID] = true
	}

	// Invalid bodies: 400 with every problem at its path, using no quota.
	for _, tc := range []struct {
		name  string
		body  string
		paths []string
	}{
		{"not json", `{"spec":`, []string{"$"}},
		{"payment", func() string {
			m := run(t, 10)
			m["run"].(map[string]any)["stopped_before_payment"] = false
			return mustJSON(t, m)
		}(), []string{"$.run.stopped_before_payment"}},
		{"unknown id and 9 results", func() string {
			m := run(t, 9)
			m["results"].([]any)[2].(map[string]any)["id"] = "svc100-v1-999"
			return mustJSON(t, m)
		}(), []string{"$.results", "$.results[2].id"}},
	} {
		code, body := post("198.51.100.9", tc.body)
		answers = append(answers, body)
		var eb ErrorBody
		json.Unmarshal([]byte(body), &eb)
		var paths []string
		for _, p := range eb.Error.Problems {
			paths = append(paths, p.Path)
			if p.Message == "" {
				t.Errorf("%s: problem without a message", tc.name)
			}
		}
		if code != 400 || eb.Error.Code != "invalid_request" || !cmp.Equal(paths, tc.paths) {
			t.Errorf("%s: %d %s, want 400 at %v", tc.name, code, body, tc.paths)
		}
	}
	// Larger than 200 KB: 413.
	big := run(t, 10)
	big["run"].(map[string]any)["notes"] = strings.Repeat("x", 201<<10)
	if code, body := post("198.51.100.9", mustJSON(t, big)); code != 413 || errorCode(t, body) != "too_large" {
		t.Errorf("201 KB: %d %.200s", code, body)
	}
	if n := ts.limits.remaining(ts.state.Key("198.51.100.9"), quotaLeaderboard); n != 5 {
		t.Errorf("invalid bodies used the quota: %d left", n)
	}

	// Five new runs per network a day: 198.51.100.7 has used 3.
	for i := range 2 {
		m := run(t, 13+i)
		code, body := post("198.51.100.7", mustJSON(t, m))
		if code != 201 {
			t.Fatalf("run %d: %d %s", 4+i, code, body)
		}
	}
	sixth := run(t, 20)
	code, body = post("198.51.100.7", mustJSON(t, sixth))
	if code != 429 || errorCode(t, body) != "rate_limited" {
		t.Errorf("sixth run: %d %s", code, body)
	}
	// A duplicate is still answered; another network may submit.
	if code, _ := post("198.51.100.7", mustJSON(t, first)); code != 200 {
		t.Errorf("duplicate over the limit: %d", code)
	}
	if code, _ := post("198.51.100.10", mustJSON(t, sixth)); code != 201 {
		t.Errorf("other network: %d", code)
	}

	// After a restart the duplicate still answers 200 with the id.
	ts.ts.Close()
	ts.Close()
	ts = newTestServer(t, cfg)
	code, body = ts.postJSON(t, "/api/leaderboard/submit", "198.51.100.11", mustJSON(t, first))
	answers = append(answers, body)
	if r := receipt(body); code != 200 || r.ID != r1.ID {
		t.Errorf("after restart: %d %s", code, body)
	}

	// The contact is in the private state log, nowhere else.
	for _, a := range answers {
		if strings.Contains(a, privateContact) || strings.Contains(a, "contact") {
			t.Errorf("an answer shows the contact: %s", a)
		}
	}
	if strings.Contains(logs.String(), privateContact) {
		t.Error("a log line holds the contact")
	}
	subs, _, err := leaderboard.ReplaySubmissions(context.Background(), inbox.DirReader(filepath.Join(dir, "state")), ts.now())
	if err != nil || len(subs) != 6 || subs[0].ID != r1.ID || subs[0].Submission.Contact != "" {
		t.Errorf("replayed %d runs: %v", len(subs), err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "state", "log", "00000001.jsonl"))
	if !bytes.Contains(raw, []byte(privateContact)) {
		t.Error("the state log lost the contact the service needs for verification")
	}
}

// TestLeaderboardSubmitConcurrent sends one run from many networks at
// once: one 201, the rest 200 with its id, one record.
func TestLeaderboardSubmitConcurrent(t *testing.T) {
	dir := t.TempDir()
	ts := newTestServer(t, Config{DataDir: dir, TrustProxy: true})
	body := mustJSON(t, run(t, 12))
	codes := make(chan string, 10)
	for i := range 10 {
		go func() {
			code, resp := ts.postJSON(t, "/api/leaderboard/submit", fmt.Sprintf("192.0.2.%d", i), body)
			var r LeaderboardReceipt
			json.Unmarshal([]byte(resp), &r)
			codes <- fmt.Sprint(code, " ", r.ID)
		}()
	}
	n := map[string]int{}
	for range 10 {
		n[<-codes]++
	}
	if len(n) != 2 {
		t.Errorf("answers %v, want one 201 and nine 200 with the same id", n)
	}
	subs, skipped, _ := leaderboard.ReplaySubmissions(context.Background(), inbox.DirReader(filepath.Join(dir, "state")), ts.now())
	if len(subs) != 1 || skipped != 0 {
		t.Errorf("%d runs stored, %d skipped", len(subs), skipped)
	}
}

// TestSubmissionSamples checks that the samples `make demo` prints are
// accepted as they are.
func TestSubmissionSamples(t *testing.T) {
	_, client := fixtureClient(t)
	ts := newTestServer(t, Config{DataDir: t.TempDir(), Client: client})
	samples := SubmissionSamples("evenoxco.test", "simplehedge.test")
	if len(samples) != 2 {
		t.Fatalf("%d samples", len(samples))
	}
	code, body := ts.postJSON(t, samples[0].Path, "", string(samples[0].Body))
	if code != 200 || !strings.Contains(body, `"accepted":2`) {
		t.Errorf("store sample: %d %s", code, body)
	}
	code, body = ts.postJSON(t, samples[1].Path, "", string(samples[1].Body))
	if code != 201 || !strings.Contains(body, `"n":10`) {
		t.Errorf("run sample: %d %s", code, body)
	}
	one := SubmissionSamples()[0]
	if !strings.Contains(string(one.Body), `"url": "https://shop.example/"`) {
		t.Errorf("default store sample: %s", one.Body)
	}
	curl := samples[1].Curl("http://127.0.0.1:8080/")
	if !strings.HasPrefix(curl, "curl -s -X POST http://127.0.0.1:8080/api/leaderboard/submit -H 'Content-Type: application/json' --data-binary '{") {
		t.Errorf("curl: %.200s", curl)
	}
}

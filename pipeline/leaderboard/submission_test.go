package leaderboard

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/datasets/svc100"
)

// validBody returns a valid submission of n results as a JSON object tree
// a test can change.
func validBody(n int) map[string]any {
	var results []any
	for i := 1; i <= n; i++ {
		outcome := OutcomeNoCart
		if i%3 == 0 {
			outcome = OutcomeAddedToCart
		}
		results = append(results, map[string]any{
			"id": svc100.ID(i), "outcome": outcome, "at": "2026-11-20T10:00:00Z", "steps": 7, "seconds": 42.5,
		})
	}
	return map[string]any{
		"spec":     svc100.Spec,
		"test_set": svc100.TestSet,
		"agent": map[string]any{
			"name": "Acme Shopper", "version": "2.1", "builder": "Acme", "url": "https://acme.example/agent",
			"path": "browser", "model": "acme-large",
		},
		"run": map[string]any{
			"started_at": "2026-11-20T09:00:00Z", "finished_at": "2026-11-20T11:00:00Z",
			"stopped_before_payment": true, "notes": "nightly run",
		},
		"results": results,
		"contact": "private-contact@example.com",
	}
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseValid(t *testing.T) {
	for _, n := range []int{MinResults, 37, MaxResults} {
		s, err := Parse(encode(t, validBody(n)))
		if err != nil {
			t.Fatalf("%d results: %v", n, err)
		}
		if len(s.Results) != n || s.Agent.Name != "Acme Shopper" || s.Contact != "private-contact@example.com" {
			t.Errorf("%d results: parsed %+v", n, s)
		}
		r := s.Receipt()
		want := Receipt{OK: true, ID: s.ID(), Status: StatusUnverified, N: n, CartSuccesses: n / 3}
		if diff := cmp.Diff(want, r); diff != "" {
			t.Errorf("receipt (-want +got):\n%s", diff)
		}
		if p := s.Public(); p.Contact != "" || s.Contact == "" {
			t.Error("Public kept the contact or cleared the original's")
		}
	}
}

// TestParseInvalid covers each class of invalid submission, with the JSON
// path each problem must be reported at.
func TestParseInvalid(t *testing.T) {
	type change func(m map[string]any)
	agent := func(m map[string]any) map[string]any { return m["agent"].(map[string]any) }
	run := func(m map[string]any) map[string]any { return m["run"].(map[string]any) }
	result := func(m map[string]any, i int) map[string]any { return m["results"].([]any)[i].(map[string]any) }
	for _, c := range []struct {
		name  string
		n     int
		edit  change
		paths []string
	}{
		{"wrong spec", 10, func(m map[string]any) { m["spec"] = "svc-leaderboard-submission/v2" }, []string{"$.spec"}},
		{"wrong test set", 10, func(m map[string]any) { m["test_set"] = "SVC-100 v2" }, []string{"$.test_set"}},
		{"missing agent", 10, func(m map[string]any) { delete(m, "agent") }, []string{"$.agent"}},
		{"missing name and path", 10, func(m map[string]any) { delete(agent(m), "name"); delete(agent(m), "path") },
			[]string{"$.agent.name", "$.agent.path"}},
		{"blank name", 10, func(m map[string]any) { agent(m)["name"] = "   " }, []string{"$.agent.name"}},
		{"long name", 10, func(m map[string]any) { agent(m)["name"] = strings.Repeat("x", 61) }, []string{"$.agent.name"}},
		{"long version", 10, func(m map[string]any) { agent(m)["version"] = strings.Repeat("1", 41) }, []string{"$.agent.version"}},
		{"http agent url", 10, func(m map[string]any) { agent(m)["url"] = "http://acme.example/" }, []string{"$.agent.url"}},
		{"unknown path", 10, func(m map[string]any) { agent(m)["path"] = "telepathy" }, []string{"$.agent.path"}},
		{"paid", 10, func(m map[string]any) { run(m)["stopped_before_payment"] = false }, []string{"$.run.stopped_before_payment"}},
		{"no stop flag", 10, func(m map[string]any) { delete(run(m), "stopped_before_payment") }, []string{"$.run.stopped_before_payment"}},
		{"bad start time", 10, func(m map[string]any) { run(m)["started_at"] = "yesterday" }, []string{"$.run.started_at"}},
		{"finished before started", 10, func(m map[string]any) { run(m)["finished_at"] = "2026-11-20T08:00:00Z" }, []string{"$.run.finished_at"}},
		{"long notes", 10, func(m map[string]any) { run(m)["notes"] = strings.Repeat("n", 501) }, []string{"$.run.notes"}},
		{"too few results", 9, nil, []string{"$.results"}},
		{"too many results", 100, func(m map[string]any) {
			m["results"] = append(m["results"].([]any), map[string]any{"id": "svc100-v1-001", "outcome": "no_cart"})
		}, []string{"$.results", "$.results[100].id"}},
		{"bad id form", 10, func(m map[string]any) { result(m, 3)["id"] = "store-4" }, []string{"$.results[3].id"}},
		{"id not in the set", 10, func(m map[string]any) { result(m, 4)["id"] = "svc100-v1-101" }, []string{"$.results[4].id"}},
		{"id 000", 10, func(m map[string]any) { result(m, 0)["id"] = "svc100-v1-000" }, []string{"$.results[0].id"}},
		{"duplicate id", 12, func(m map[string]any) { result(m, 11)["id"] = svc100.ID(2) }, []string{"$.results[11].id"}},
		{"bad outcome", 10, func(m map[string]any) { result(m, 2)["outcome"] = "purchased" }, []string{"$.results[2].outcome"}},
		{"negative steps", 10, func(m map[string]any) { result(m, 5)["steps"] = -1 }, []string{"$.results[5].steps"}},
		{"bad at", 10, func(m map[string]any) { result(m, 6)["at"] = "2026-13-01T00:00:00Z" }, []string{"$.results[6].at"}},
		{"unknown member", 10, func(m map[string]any) { m["score"] = 99 }, []string{"$.score"}},
		{"unknown result member", 10, func(m map[string]any) { result(m, 1)["price"] = 3 }, []string{"$.results[1].price"}},
		{"long contact", 10, func(m map[string]any) { m["contact"] = strings.Repeat("c", 201) }, []string{"$.contact"}},
		{"results not a list", 10, func(m map[string]any) { m["results"] = "all good" }, []string{"$.results"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := validBody(c.n)
			if c.edit != nil {
				c.edit(m)
			}
			_, err := Parse(encode(t, m))
			var ie *InvalidError
			if !errors.As(err, &ie) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want an *InvalidError", err)
			}
			var got []string
			for _, p := range ie.Problems {
				if p.Message == "" {
					t.Errorf("problem at %s has no message", p.Path)
				}
				if len(got) == 0 || got[len(got)-1] != p.Path {
					got = append(got, p.Path)
				}
			}
			if diff := cmp.Diff(c.paths, got); diff != "" {
				t.Errorf("problem paths (-want +got):\n%s\n%v", diff, ie.Problems)
			}
		})
	}
}

func TestParseNotJSON(t *testing.T) {
	for name, body := range map[string]string{
		"empty":    "",
		"garbage":  "{not json",
		"trailing": `{"spec": "x"} {"spec": "y"}`,
		"array":    `[1, 2]`,
	} {
		_, err := Parse([]byte(body))
		var ie *InvalidError
		if !errors.As(err, &ie) || len(ie.Problems) == 0 || ie.Problems[0].Path != "$" {
			t.Errorf("%s: err = %v, want a problem at $", name, err)
		}
	}
}

func TestParseTooLarge(t *testing.T) {
	m := validBody(10)
	run := m["run"].(map[string]any)
	run["notes"] = strings.Repeat("x", MaxBody)
	if _, err := Parse(encode(t, m)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
	if _, err := ReadBody(strings.NewReader(strings.Repeat(" ", MaxBody+1))); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadBody err = %v, want ErrTooLarge", err)
	}
	if b, err := ReadBody(strings.NewReader(strings.Repeat(" ", MaxBody))); err != nil || len(b) != MaxBody {
		t.Errorf("ReadBody of exactly MaxBody: %d bytes, %v", len(b), err)
	}
}

// TestDuplicateKey pins the duplicate-run rule: the same agent with the same
// outcomes at the same stores is the same run, whatever else changed.
func TestDuplicateKey(t *testing.T) {
	key := func(edit func(m map[string]any)) string {
		t.Helper()
		m := validBody(20)
		if edit != nil {
			edit(m)
		}
		s, err := Parse(encode(t, m))
		if err != nil {
			t.Fatal(err)
		}
		return s.Key()
	}
	base := key(nil)
	if len(base) != 64 {
		t.Fatalf("key %q is not a hex sha256", base)
	}
	same := map[string]func(m map[string]any){
		"results reordered": func(m map[string]any) {
			rs := m["results"].([]any)
			for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
				rs[i], rs[j] = rs[j], rs[i]
			}
		},
		"new times and notes": func(m map[string]any) {
			r := m["run"].(map[string]any)
			r["started_at"], r["finished_at"], r["notes"] = "2026-12-01T00:00:00Z", "2026-12-01T01:00:00Z", "again"
			for _, x := range m["results"].([]any) {
				x.(map[string]any)["at"] = "2026-12-01T00:30:00Z"
				x.(map[string]any)["seconds"] = 1
			}
		},
		"other contact and builder": func(m map[string]any) {
			m["contact"] = "someone-else@example.com"
			m["agent"].(map[string]any)["builder"] = "Acme Labs"
			delete(m["agent"].(map[string]any), "url")
		},
		"name case and spaces": func(m map[string]any) { m["agent"].(map[string]any)["name"] = "  acme   SHOPPER " },
		"full-width name":      func(m map[string]any) { m["agent"].(map[string]any)["name"] = "Ａｃｍｅ Shopper" },
	}
	for name, edit := range same {
		if got := key(edit); got != base {
			t.Errorf("%s: key changed, want the same run", name)
		}
	}
	differ := map[string]func(m map[string]any){
		"one outcome":   func(m map[string]any) { m["results"].([]any)[0].(map[string]any)["outcome"] = OutcomeBlocked },
		"one store":     func(m map[string]any) { m["results"].([]any)[0].(map[string]any)["id"] = svc100.ID(99) },
		"fewer results": func(m map[string]any) { m["results"] = m["results"].([]any)[:19] },
		"version":       func(m map[string]any) { m["agent"].(map[string]any)["version"] = "2.2" },
		"path":          func(m map[string]any) { m["agent"].(map[string]any)["path"] = "api" },
		"model":         func(m map[string]any) { m["agent"].(map[string]any)["model"] = "acme-small" },
		"name":          func(m map[string]any) { m["agent"].(map[string]any)["name"] = "Acme Shopper Pro" },
	}
	for name, edit := range differ {
		if got := key(edit); got == base {
			t.Errorf("%s: same key, want a different run", name)
		}
	}
	s, _ := Parse(encode(t, validBody(20)))
	if s.ID() != "sub-"+base[:16] {
		t.Errorf("ID = %s", s.ID())
	}
}

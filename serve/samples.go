package serve

import (
	"encoding/json"
	"strings"

	"svc/datasets/svc100"
	"svc/pipeline/leaderboard"
)

// Sample is a ready-to-send request to one of the submission endpoints,
// for `make demo` and the docs to print.
type Sample struct {
	Title  string
	Method string
	Path   string
	Body   json.RawMessage // indented JSON
}

// Curl returns the sample as one curl command against base
// ("http://127.0.0.1:8080"), the body in single quotes.
func (s Sample) Curl(base string) string {
	body := strings.ReplaceAll(string(s.Body), "'", `'\''`)
	return "curl -s -X " + s.Method + " " + strings.TrimSuffix(base, "/") + s.Path +
		" -H 'Content-Type: application/json' --data-binary '" + body + "'"
}

// SubmissionSamples returns one store submission (of hosts, or of
// "shop.example" when none are given; with the demo, pass fixture hosts
// that are not listed yet) and one leaderboard submission of 10 results
// over SVC-100 v1 that the server accepts as is.
func SubmissionSamples(hosts ...string) []Sample {
	if len(hosts) == 0 {
		hosts = []string{"shop.example"}
	}
	store := StoreSubmission{Category: categorySlugs[0]}
	if len(hosts) == 1 {
		store.URL = "https://" + hosts[0] + "/"
	} else {
		store.Hosts = hosts
	}
	return []Sample{
		{Title: "Add stores to the directory", Method: "POST", Path: "/api/stores/submit", Body: indent(store)},
		{Title: "Submit a leaderboard run (10 results; a real run may have up to 100)", Method: "POST",
			Path: "/api/leaderboard/submit", Body: exampleRun(leaderboard.MinResults)},
	}
}

// exampleRun is a valid submission of n results (n >= 10 passes Parse;
// the GET description shows 2), as indented JSON.
func exampleRun(n int) json.RawMessage {
	outcomes := []string{
		leaderboard.OutcomeAddedToCart, leaderboard.OutcomeNoCart, leaderboard.OutcomeCheckoutReached,
		leaderboard.OutcomeBlocked, leaderboard.OutcomeNoCart, leaderboard.OutcomeError,
	}
	steps, secs := 9.0, 74.5
	sub := leaderboard.Submission{
		Spec: svc100.Spec, TestSet: svc100.TestSet,
		Agent: leaderboard.Agent{Name: "Example Shopper", Version: "1.0", Builder: "Example Labs",
			URL: "https://agent.example/", Path: "browser", Model: "example-model-1"},
		Run: leaderboard.Run{StartedAt: "2026-11-20T09:00:00Z", FinishedAt: "2026-11-20T10:30:00Z",
			StoppedBeforePayment: true, Notes: "One attempt per store; stopped before payment."},
		Contact: "you@agent.example (private: used only to arrange verification)",
	}
	for i := range n {
		sub.Results = append(sub.Results, leaderboard.Result{
			ID: svc100.ID(i + 1), Outcome: outcomes[i%len(outcomes)], At: "2026-11-20T09:05:00Z",
			Steps: &steps, Seconds: &secs,
		})
	}
	return indent(sub)
}

func indent(v any) json.RawMessage {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err) // fixed types: cannot fail
	}
	return b
}

package shop

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// scriptedModel is an OpenAI-compatible chat endpoint whose "model" is a
// script: it reads the element list of the prompt and picks an action by
// rule. A hostile script first tries every forbidden control it sees.
type scriptedModel struct {
	hostile bool
	mu      sync.Mutex
	tried   map[string]bool
	prompts []string
}

var reLine = regexp.MustCompile(`(?m)^\[(\d+)\] (\S+) "(.*)"`)

func (m *scriptedModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 || req.Model != "scripted" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	prompt := req.Messages[1].Content
	m.mu.Lock()
	m.prompts = append(m.prompts, prompt)
	if m.tried == nil {
		m.tried = map[string]bool{}
	}
	answer := `{"action":"done"}`
	lines := reLine.FindAllStringSubmatch(prompt, -1)
	pick := func(re string) bool {
		for _, l := range lines {
			if regexp.MustCompile(re).MatchString(l[3]) && !m.tried[l[2]+l[3]] {
				m.tried[l[2]+l[3]] = true
				answer = fmt.Sprintf(`Sure. {"action":"click","ref":%s}`, l[1])
				return true
			}
		}
		return false
	}
	switch {
	case strings.Contains(prompt, "Page title: Checkout"):
	case m.hostile && pick(`(?i)place order|buy it now|shop pay|paypal|sign in|subscribe|card number|complete purchase`):
	case pick(`(?i)^accept all$|^close$`):
	case pick(`(?i)^add to cart$`):
	case pick(`(?i)^check ?out$`):
	case pick(`(?i)^linen shirt$`):
	}
	m.mu.Unlock()
	body, _ := json.Marshal(map[string]any{
		"choices": []map[string]any{{"message": map[string]string{"role": "assistant", "content": answer}, "finish_reason": "stop"}},
		"usage":   map[string]int{"total_tokens": 300},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

func TestModelShopperWithoutAModelIsNotAttempted(t *testing.T) {
	rep, err := Run(t.Context(), Options{}, Model, "https://svcshop-form.test/")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Outcome != NotAttempted || rep.Reason != "no_model_configured" || rep.Steps != 0 {
		t.Errorf("got %s/%s with %d steps, want not_attempted/no_model_configured and no step", rep.Outcome, rep.Reason, rep.Steps)
	}
}

func TestModelShopper(t *testing.T) {
	srv, b := shared(t)
	for _, tc := range []struct {
		name    string
		host    string
		hostile bool
		want    string
	}{
		{"polite", "svcshop-form.test", false, CheckoutReached},
		{"polite-overlays", "svcshop-consent.test", false, CheckoutReached},
		{"hostile-traps", "svcshop-trap.test", true, CheckoutReached},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.Shops().Traps()
			m := &scriptedModel{hostile: tc.hostile}
			ms := httptest.NewServer(m)
			defer ms.Close()
			opts := runOptions(t, srv, b)
			opts.LLM = LLMConfig{URL: ms.URL + "/v1/chat/completions", Model: "scripted"}
			rep, err := Run(t.Context(), opts, Model, "https://"+tc.host+"/")
			if err != nil {
				t.Fatal(err)
			}
			if rep.Outcome != tc.want || rep.Model != "scripted" {
				t.Errorf("outcome %s (%s), model %q; want %s", rep.Outcome, rep.Reason, rep.Model, tc.want)
			}
			refusals := 0
			for _, st := range rep.Log {
				if st.Action == "refused" {
					refusals++
				}
			}
			if tc.hostile && refusals < 4 {
				t.Errorf("the hostile model's forbidden clicks were refused %d times, want at least 4", refusals)
			}
			if after := srv.Shops().Traps(); len(after) != len(before) {
				t.Errorf("traps touched: %v", after)
			}
			if l := leaked(rep); len(l) > 0 {
				t.Errorf("the report reveals a checkout address: %v", l)
			}
			for _, p := range m.prompts {
				if strings.Contains(p, "ck_secret_token") || strings.Contains(p, "token=") {
					t.Errorf("a prompt sent to the model holds a checkout address:\n%s", p)
				}
			}
			if t.Failed() || testing.Verbose() {
				for _, st := range rep.Log {
					t.Logf("%d %s %s %q — %s [%s] %s", st.N, st.Action, st.Role, st.Name, st.Note, st.Title, st.URL)
				}
			}
		})
	}
}

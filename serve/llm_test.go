package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// modelServer is an OpenAI-compatible chat endpoint that answers content
// with finishReason, after delay.
func modelServer(t *testing.T, content, finishReason string, delay time.Duration, gotAuth *string) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gotAuth != nil {
			*gotAuth = r.Header.Get("Authorization")
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		if json.Unmarshal(b, &req) != nil || req.Model != "test-model" || len(req.Messages) != 1 {
			http.Error(w, "bad request", 400)
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]string{"role": "assistant", "content": content}, "finish_reason": finishReason}}})
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestReadStore(t *testing.T) {
	ev := storeEvidence{Host: "alder.test", Name: "Alder Apparel", Category: "apparel",
		Texts: map[string]string{"product name": "Linen Shirt"}}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

	got := readStore(context.Background(), LLMConfig{}, ev, now)
	if got.Status != LLMNotConfigured || len(got.Rivals) != 0 || len(got.Claims) != 0 {
		t.Errorf("no model: %+v", got)
	}

	var auth string
	answer := "Sure! ```json\n" + `{"summary":"Casual clothing.","sells":["linen shirts","garden tools"],"rivals":["Birch Basics"]}` + "\n```"
	ts := modelServer(t, answer, "stop", 0, &auth)
	got = readStore(context.Background(), LLMConfig{URL: ts.URL, Model: "test-model", Key: "k"}, ev, now)
	if got.Status != LLMOK || got.Summary != "Casual clothing." || strings.Join(got.Rivals, ",") != "Birch Basics" {
		t.Fatalf("read: %+v", got)
	}
	if auth != "Bearer k" {
		t.Errorf("Authorization %q", auth)
	}
	if len(got.Claims) != 2 || !got.Claims[0].Supported || got.Claims[0].Evidence != "product name" || got.Claims[1].Supported {
		t.Errorf("claims checked against saved data: %+v", got.Claims)
	}

	cut := modelServer(t, `{"summary":"Casual cl`, "length", 0, nil)
	got = readStore(context.Background(), LLMConfig{URL: cut.URL, Model: "test-model"}, ev, now)
	if got.Status != LLMPending || len(got.Rivals) != 0 {
		t.Errorf("cut off: %+v", got)
	}

	slow := modelServer(t, `{}`, "stop", 2*time.Second, nil)
	got = readStore(context.Background(), LLMConfig{URL: slow.URL, Model: "test-model", Timeout: 100 * time.Millisecond}, ev, now)
	if got.Status != LLMPending {
		t.Errorf("timeout: %+v", got)
	}

	prose := modelServer(t, "I am not sure about that store.", "stop", 0, nil)
	got = readStore(context.Background(), LLMConfig{URL: prose.URL, Model: "test-model"}, ev, now)
	if got.Status != LLMFailed || len(got.Rivals) != 0 || len(got.Claims) != 0 {
		t.Errorf("no JSON: %+v", got)
	}
}

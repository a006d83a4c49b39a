package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"
)

// LLMConfig names the OpenAI-compatible chat API the Index answer reads
// from (env SVC_LLM_URL, SVC_LLM_MODEL, SVC_LLM_KEY). The URL is the
// operator's own setting, not user input, so it is called with a plain
// client (it may well be a model on localhost); the store's name is the only
// user-influenced text sent, and nothing the model says is followed.
type LLMConfig struct {
	URL     string // e.g. https://api.openai.com/v1/chat/completions
	Model   string
	Key     string
	Timeout time.Duration // default 20 s
}

// Configured reports whether a model is set up.
func (c LLMConfig) Configured() bool { return c.URL != "" && c.Model != "" }

// LLM read statuses (spec 2.14).
const (
	LLMOK            = "ok"             // a read exists and was checked against saved data
	LLMPending       = "pending"        // the answer was cut off; it waits for a re-check
	LLMNotConfigured = "not_configured" // no model is set up: nothing is invented
	LLMFailed        = "failed"         // the call failed; nothing is invented
)

// LLMRead is what a language model tells a shopper about a store, checked
// against the store's saved pages. Rivals are present only when a read
// exists.
type LLMRead struct {
	Status    string     `json:"status"`
	Model     string     `json:"model,omitempty"`
	Question  string     `json:"question,omitempty"`
	Summary   string     `json:"summary,omitempty"`
	Claims    []LLMClaim `json:"claims,omitempty"`
	Rivals    []string   `json:"rivals,omitempty"`
	CheckedAt string     `json:"checkedAt,omitempty"`
	Note      string     `json:"note"`
}

// LLMClaim is one thing the model said the store sells, and whether the
// store's saved data supports it.
type LLMClaim struct {
	Text      string `json:"text"`
	Supported bool   `json:"supported"`
	Evidence  string `json:"evidence,omitempty"` // the saved field that supports it
}

// storeEvidence is the saved data a read is checked against.
type storeEvidence struct {
	Host     string
	Name     string
	Category string
	Texts    map[string]string // field name -> saved text (product name, ...)
}

const llmNote = "A real model call via API, checked against the store's saved pages; not a consumer app. " +
	"Claims the saved pages do not support are marked unsupported. Brand statements never change scores."

// maxLLMBody bounds a model's answer.
const maxLLMBody = 256 << 10

// readStore asks the model what it would tell a shopper about the store and
// checks the answer against the saved evidence. It never invents: without a
// model, or when the call fails, the read says so and holds no claims.
func readStore(ctx context.Context, cfg LLMConfig, ev storeEvidence, now time.Time) LLMRead {
	if !cfg.Configured() {
		return LLMRead{Status: LLMNotConfigured,
			Note: "No language model is configured on this server (SVC_LLM_URL, SVC_LLM_MODEL): there is no model read, and no rivals are named."}
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	question := fmt.Sprintf("A shopper asks an AI assistant about the online store %q (%s). "+
		"What does it sell, and which rival stores sell similar products? "+
		`Answer only with JSON: {"summary": "...", "sells": ["..."], "rivals": ["..."]}`, ev.Name, ev.Host)
	body, _ := json.Marshal(map[string]any{
		"model":       cfg.Model,
		"messages":    []map[string]string{{"role": "user", "content": question}},
		"max_tokens":  400,
		"temperature": 0,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(body))
	if err != nil {
		return LLMRead{Status: LLMFailed, Note: "the model URL is invalid; nothing is invented"}
	}
	req.Header.Set("Content-Type", "application/json")
	if cfg.Key != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.Key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return LLMRead{Status: LLMPending, Model: cfg.Model, Question: question,
				Note: "The model did not answer in time; the read waits for a re-check. Pending is not a fact the model did not know."}
		}
		return LLMRead{Status: LLMFailed, Model: cfg.Model, Note: "the model could not be reached; nothing is invented"}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxLLMBody))
	if resp.StatusCode != http.StatusOK {
		return LLMRead{Status: LLMFailed, Model: cfg.Model, Note: fmt.Sprintf("the model answered HTTP %d; nothing is invented", resp.StatusCode)}
	}
	var chat struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if json.Unmarshal(raw, &chat) != nil || len(chat.Choices) == 0 {
		return LLMRead{Status: LLMFailed, Model: cfg.Model, Note: "the model's answer was not a chat completion; nothing is invented"}
	}
	ch := chat.Choices[0]
	if ch.FinishReason == "length" {
		return LLMRead{Status: LLMPending, Model: cfg.Model, Question: question,
			Note: "The model's answer was cut off; the read waits for a re-check. Pending is not a fact the model did not know."}
	}
	var ans struct {
		Summary string   `json:"summary"`
		Sells   []string `json:"sells"`
		Rivals  []string `json:"rivals"`
	}
	if json.Unmarshal([]byte(jsonObject(ch.Message.Content)), &ans) != nil {
		return LLMRead{Status: LLMFailed, Model: cfg.Model, Note: "the model did not answer in the JSON asked for; nothing is invented"}
	}
	read := LLMRead{Status: LLMOK, Model: cfg.Model, Question: question, Summary: clip(ans.Summary, 600),
		CheckedAt: now.UTC().Format(time.RFC3339), Note: llmNote}
	for _, s := range limit(ans.Sells, 10) {
		read.Claims = append(read.Claims, checkClaim(clip(s, 120), ev))
	}
	for _, r := range limit(ans.Rivals, 10) {
		if r = strings.TrimSpace(clip(r, 120)); r != "" {
			read.Rivals = append(read.Rivals, r)
		}
	}
	return read
}

// checkClaim marks a claim supported when a word of it (4+ letters) appears
// in a saved text of the store (its category, product names, ...).
func checkClaim(text string, ev storeEvidence) LLMClaim {
	c := LLMClaim{Text: text}
	fields := make([]string, 0, len(ev.Texts)+1)
	for k := range ev.Texts {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	saved := map[string]string{"category": ev.Category}
	for _, k := range fields {
		saved[k] = ev.Texts[k]
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !(r >= 'a' && r <= 'z') }) {
		if len(w) < 4 {
			continue
		}
		stem := strings.TrimSuffix(w, "s")
		for _, k := range append([]string{"category"}, fields...) {
			if strings.Contains(strings.ToLower(saved[k]), stem) {
				c.Supported, c.Evidence = true, k
				return c
			}
		}
	}
	return c
}

// jsonObject cuts the first {...} out of a model answer (models like to
// wrap JSON in prose or code fences).
func jsonObject(s string) string {
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return s
	}
	return s[i : j+1]
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n]
}

func limit(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

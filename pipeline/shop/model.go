package shop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// LLMConfig names the OpenAI-compatible chat completions endpoint of
// shopper D: the same setting as the Index answer's model read (env
// SVC_LLM_URL, SVC_LLM_MODEL, SVC_LLM_KEY). It is the operator's own
// setting, so it is called with a plain client (a model on localhost is
// fine); only the page snapshot is sent.
type LLMConfig struct {
	URL     string
	Model   string
	Key     string
	Timeout time.Duration // per call; default 20 s
}

// Configured reports whether a model is set up.
func (c LLMConfig) Configured() bool { return c.URL != "" && c.Model != "" }

// Bounds of shopper D.
const (
	maxModelSteps    = 12
	maxModelTokens   = 30000 // prompt and completion tokens over a run
	maxModelAnswer   = 256 << 10
	maxModelElements = 60
)

const modelSystem = `You are a shopping agent. Your task on this online store: put one available product in the cart, then go to the checkout page, and stop there.
Rules: never place an order or pay, never log in or create an account, never type anything, never solve a captcha.
You see the page as a list of elements, each with a ref. Answer with one JSON object only:
{"action":"click","ref":N} to click element N,
{"action":"select","ref":N,"option":"text"} to choose an option of select N,
{"action":"done"} when you are on the checkout page or cannot go further.`

type modelAction struct {
	Action string `json:"action"`
	Ref    *int   `json:"ref"`
	Option string `json:"option"`
}

// model is shopper D: a configured model chooses each action from a
// compact snapshot of the page; the same guard as every shopper decides
// whether it is taken, and the run's outcome is what the page shows, never
// what the model says.
func (s *session) model() error {
	var history []string
	spent, bad := 0, 0
	for step := 0; step < maxModelSteps; step++ {
		st, err := s.state()
		if err != nil {
			return err
		}
		its, err := s.items()
		if err != nil {
			return err
		}
		if ok, _ := s.cartEvidence(st); ok {
			s.added = true
		}
		byRef := map[int]Item{}
		prompt := s.snapshotPrompt(st, its, history, byRef)
		act, used, err := s.ask(prompt)
		spent += used
		if err != nil {
			s.record("model", "", "", "the model call failed: "+clipText(err.Error(), 80))
			if s.added {
				return s.end(AddedToCart, "model_failed_after_cart")
			}
			return s.end(NotAttempted, "model_failed")
		}
		if act.Action == "done" || act.Action == "stop" {
			s.record("model", "", "", "the model stopped")
			break
		}
		it, ok := Item{}, false
		if act.Ref != nil {
			it, ok = byRef[*act.Ref]
		}
		if !ok || act.Action != "click" && act.Action != "select" {
			bad++
			history = append(history, "your last answer was not a valid action")
			if bad >= 2 {
				s.record("model", "", "", "the model gave no valid action twice")
				break
			}
			continue
		}
		c := ctl(it)
		switch act.Action {
		case "click":
			err = s.act(it, c.role, c.name, "chosen by the model")
			history = append(history, fmt.Sprintf("clicked %s %q", c.role, clipText(c.name, 40)))
		case "select":
			opt, found := Option{}, false
			for _, o := range it.Options {
				if strings.EqualFold(strings.TrimSpace(o.Text), strings.TrimSpace(act.Option)) || o.Value == act.Option {
					opt, found = o, true
					break
				}
			}
			if !found {
				history = append(history, "that option does not exist")
				continue
			}
			err = s.choose(it, opt, c.role, c.name)
			history = append(history, fmt.Sprintf("chose %q in %q", opt.Text, clipText(c.name, 40)))
		}
		switch {
		case errors.Is(err, errStop):
			return err
		case errors.Is(err, errRefused):
			history[len(history)-1] += " — refused: that action is not allowed"
		case err != nil:
			history[len(history)-1] += " — it could not be done"
		}
		if st, err := s.state(); err == nil {
			if ok, _ := s.cartEvidence(st); ok {
				s.added = true
			}
		}
		if spent >= maxModelTokens {
			s.record("model", "", "", "the token budget is spent")
			break
		}
	}
	if s.added {
		return s.end(AddedToCart, "model_stopped_before_checkout")
	}
	return s.end(NoCart, "model_found_no_cart")
}

// snapshotPrompt is the compact page the model sees: title, address
// (withheld on a checkout page), cart count, the actions so far, and the
// actionable elements as "[ref] role "name"".
func (s *session) snapshotPrompt(st PageState, its []Item, history []string, byRef map[int]Item) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Page title: %s\nAddress: %s\n", clipText(st.Title, 100), StepURL(st.URL, IsCheckoutPage(st)))
	if st.CartCount != nil {
		fmt.Fprintf(&b, "Cart count shown: %d\n", *st.CartCount)
	}
	if len(history) > 0 {
		b.WriteString("Your actions so far: " + strings.Join(history, "; ") + "\n")
	}
	b.WriteString("Elements:\n")
	n := 0
	for _, it := range its {
		if n >= maxModelElements {
			break
		}
		if !it.Visible && it.Tag != "select" || it.Disabled || it.Region == "footer" {
			continue
		}
		name := label(it)
		if name == "" && it.Tag != "select" {
			name = "(no name)"
		}
		c := ctl(it)
		line := fmt.Sprintf("[%d] %s %q", it.Ref, c.role, clipText(name, 60))
		if it.Tag == "select" {
			var opts []string
			for _, o := range it.Options {
				if !o.Disabled {
					opts = append(opts, strconv.Quote(clipText(o.Text, 30)))
				}
			}
			line += " options: " + strings.Join(opts, ", ")
		}
		if it.Dialog {
			line += " (in a dialog)"
		}
		byRef[it.Ref] = it
		b.WriteString(line + "\n")
		n++
	}
	return b.String()
}

var reJSONObject = regexp.MustCompile(`(?s)\{.*\}`)

// ask sends one prompt and reads one action; it returns the tokens used.
func (s *session) ask(prompt string) (modelAction, int, error) {
	cfg := s.opts.LLM
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(s.ctx, timeout)
	defer cancel()
	body, _ := json.Marshal(map[string]any{
		"model": cfg.Model,
		"messages": []map[string]string{
			{"role": "system", "content": modelSystem},
			{"role": "user", "content": prompt},
		},
		"max_tokens":  120,
		"temperature": 0,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(body))
	if err != nil {
		return modelAction{}, 0, errors.New("the model URL is invalid")
	}
	req.Header.Set("Content-Type", "application/json")
	if cfg.Key != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.Key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return modelAction{}, 0, errors.New("the model could not be reached")
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxModelAnswer))
	if err != nil {
		return modelAction{}, 0, errors.New("the model's answer could not be read")
	}
	if resp.StatusCode != http.StatusOK {
		return modelAction{}, 0, fmt.Errorf("the model answered HTTP %d", resp.StatusCode)
	}
	var chat struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(raw, &chat) != nil || len(chat.Choices) == 0 {
		return modelAction{}, 0, errors.New("the answer is not a chat completion")
	}
	used := chat.Usage.TotalTokens
	if used <= 0 {
		used = (len(modelSystem) + len(prompt) + len(chat.Choices[0].Message.Content)) / 4
	}
	var act modelAction
	if m := reJSONObject.FindString(chat.Choices[0].Message.Content); m == "" || json.Unmarshal([]byte(m), &act) != nil {
		return modelAction{Action: "invalid"}, used, nil
	}
	act.Action = strings.ToLower(strings.TrimSpace(act.Action))
	return act, used, nil
}

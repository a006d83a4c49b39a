package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"svc/datasets"
	"svc/serve/readlayer"
)

// factSlugs are the typed decisions of agent_facts (spec 2.6), in the
// order answers list them.
var factSlugs = []string{
	"use_case_mention", "price_clarity", "agent_friendly_description",
	"cart_blocker_suspicion", "readiness_score",
}

// Agent facts limits: limit 1 to 50 stores; a category listing defaults
// to 20 stores (the list_category_agent_facts tool's default).
const (
	factsMaxLimit      = 50
	factsCategoryLimit = 20
)

// AgentFactsAnswer is GET /api/agent-facts (spec 2.6): an array of facts,
// each with its confidence and the sha256 of its evidence, and an honesty
// note.
type AgentFactsAnswer struct {
	Facts    []AgentFact `json:"facts"`
	Count    int         `json:"count"`
	Host     *string     `json:"host"`
	Known    *bool       `json:"known,omitempty"`
	Category *string     `json:"category"`
	Slug     *string     `json:"slug"`
	Note     string      `json:"note"`
	Snapshot string      `json:"snapshot"`
	License  string      `json:"license"`
}

// AgentFact is one typed decision about one store. Evidence is the exact
// text evidenceSha256 hashes, so anyone can check the hash; a decision the
// saved evidence cannot support has a null value and a note saying why.
type AgentFact struct {
	Host           string          `json:"host"`
	Fact           string          `json:"fact"`
	Value          json.RawMessage `json:"value"`
	Confidence     *float64        `json:"confidence"`
	EvidenceSha256 *string         `json:"evidenceSha256"`
	Evidence       *string         `json:"evidence"`
	SourceURL      *string         `json:"sourceUrl"`
	CheckedAt      *time.Time      `json:"checkedAt"`
	Note           *string         `json:"note"`
}

const factsNote = "Typed decisions read from the stored plain-HTTP check of each store (no model, no browser, no new request to the store). " +
	"Each carries a confidence from a documented rule and the sha256 of its evidence, the exact text in evidence. " +
	"use_case_mention and agent_friendly_description judge the one description the check saved from the store's pages (the text judged is in evidence); " +
	"they are null (unmeasured), not false, only when the pages gave no text. " +
	"A category listing shows measured decisions only. Facts describe what agents can read, not whether a purchase works."

// AgentFacts answers GET /api/agent-facts and the get_agent_facts and
// list_category_agent_facts tools.
func (s *Server) AgentFacts(ctx context.Context, caller string, q FactsParams) (*AgentFactsAnswer, error) {
	target := q.Host
	if target == "" {
		target = q.URL
	}
	hasHost, hasCat := strings.TrimSpace(target) != "", strings.TrimSpace(q.Category) != ""
	switch {
	case !hasHost && !hasCat:
		return nil, fail(ErrInvalid, "give host (a store host name, or url) or category (%s)", strings.Join(categorySlugs, ", "))
	case hasHost && hasCat:
		return nil, fail(ErrInvalid, "give host or category, not both")
	}
	slug := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(q.Slug)), "-", "_")
	if slug != "" && !slices.Contains(factSlugs, slug) {
		return nil, fail(ErrInvalid, "slug %q is not a fact: use one of %s", q.Slug, strings.Join(factSlugs, ", "))
	}
	limit := q.Limit
	if limit == 0 {
		limit = factsCategoryLimit
	}
	if limit < 1 || limit > factsMaxLimit {
		return nil, fail(ErrInvalid, "limit must be a number of stores from 1 to %d", factsMaxLimit)
	}
	var host, category string
	if hasHost {
		h, err := parseHost(target, "host")
		if err != nil {
			return nil, err
		}
		host = h
	} else {
		cats := matchCategories(q.Category)
		if len(cats) != 1 {
			return nil, fail(ErrInvalid, "category %q matches %d categories: use one of %s", q.Category, len(cats), strings.Join(categorySlugs, ", "))
		}
		category = cats[0]
	}
	rl, dir, err := s.hostView(caller, host, "agent facts", quotaSavedReads)
	if err != nil {
		return nil, err
	}
	defer rl.Release()
	ans := &AgentFactsAnswer{Facts: []AgentFact{}, Note: factsNote, Snapshot: rl.Version(),
		License: datasets.License}
	if slug != "" {
		ans.Slug = &slug
	}
	if host != "" {
		ans.Host = &host
		known := dir != nil && !unknownSources[dir.Text(readlayer.FSource)]
		ans.Known = &known
		if dir == nil || dir.Text(readlayer.FSource) == "opted-out" {
			if dir != nil {
				ans.Note = "This store opted out of the directory: its facts are not shown. " + factsNote
			}
			return ans, nil
		}
		if err := hostFacts(rl, ans, dir, slug); err != nil {
			return nil, fmt.Errorf("agent facts %s: %w", host, err)
		}
	} else {
		ans.Category = &category
		if err := categoryFacts(ctx, rl, ans, category, slug, limit); err != nil {
			return nil, err
		}
	}
	// The canonical decision order for one store.
	if host != "" {
		slices.SortStableFunc(ans.Facts, func(a, b AgentFact) int {
			return slices.Index(factSlugs, a.Fact) - slices.Index(factSlugs, b.Fact)
		})
	}
	ans.Count = len(ans.Facts)
	return ans, nil
}

// hostFacts reads one store's facts at its rows of agent_facts.
func hostFacts(rl readlayer.Source, ans *AgentFactsAnswer, dir *readlayer.Row, slug string) error {
	if !rl.Serves(readlayer.ReadHostFacts) {
		return fail(ErrUnavailable, "agent facts (agent_facts) are not in the published snapshot %s", rl.Version())
	}
	facts, err := rl.HostFacts(dir)
	if err != nil {
		return err
	}
	for _, f := range facts {
		if slug == "" || f.Fact == slug {
			ans.Facts = append(ans.Facts, agentFact(f))
		}
	}
	return nil
}

// categoryFacts lists the measured facts of the first limit stores of a
// category (by host) that have any.
func categoryFacts(ctx context.Context, rl readlayer.Source, ans *AgentFactsAnswer, category, slug string, limit int) error {
	if !rl.Serves(readlayer.ReadCategoryFacts) {
		return fail(ErrUnavailable, "agent facts (agent_facts, stores) is not in the published snapshot %s", rl.Version())
	}
	facts, err := rl.CategoryFacts(ctx, category, slug, limit)
	if err != nil {
		return err
	}
	for _, f := range facts {
		ans.Facts = append(ans.Facts, agentFact(f))
	}
	return nil
}

// agentFact is the answer's form of a row of agent_facts: a value that is
// not JSON is null.
func agentFact(f readlayer.Fact) AgentFact {
	out := AgentFact{Host: f.Host, Fact: f.Fact, Value: json.RawMessage("null"), Confidence: f.Confidence,
		EvidenceSha256: f.EvidenceSha256, Evidence: f.Evidence, SourceURL: f.SourceURL, CheckedAt: f.CheckedAt, Note: f.Note}
	if f.Value != nil && json.Valid([]byte(*f.Value)) {
		out.Value = json.RawMessage(*f.Value)
	}
	return out
}

func (s *Server) agentFacts(w http.ResponseWriter, r *http.Request) error {
	q, err := decodeFacts(r.URL.Query())
	if err != nil {
		return err
	}
	ans, err := s.AgentFacts(r.Context(), s.caller(r), q)
	if err != nil {
		return err
	}
	if q.Download {
		name := "agent-facts"
		if ans.Host != nil {
			name += "-" + *ans.Host
		} else if ans.Category != nil {
			name += "-" + *ans.Category
		}
		if ans.Slug != nil {
			name += "-" + *ans.Slug
		}
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.json"`)
	}
	w.Header().Set("Cache-Control", cacheFiveMinutes)
	return writeJSON(w, http.StatusOK, ans)
}

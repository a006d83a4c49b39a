package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"svc/datasets"
)

// factSlugs are the typed decisions of agent_facts (spec 2.6), in the
// order answers list them.
var factSlugs = []string{
	"use_case_mention", "price_clarity", "agent_friendly_description",
	"cart_blocker_suspicion", "readiness_score",
}

// AgentFactsQuery selects agent facts: one store (Host, or a URL of it) or
// one category's stores, optionally one decision (Slug). Limit counts
// stores (0: the default): a category listing names at most Limit stores,
// each with all its measured facts; one store's answer is all its facts.
type AgentFactsQuery struct {
	Host     string
	URL      string
	Category string
	Slug     string
	Limit    int
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
func (s *Server) AgentFacts(ctx context.Context, caller string, q AgentFactsQuery) (*AgentFactsAnswer, error) {
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
	rl, err := s.readView()
	if err != nil {
		return nil, err
	}
	defer rl.release()
	if err := s.limits.take(caller, 1, quotaSavedReads); err != nil {
		return nil, err
	}
	ans := &AgentFactsAnswer{Facts: []AgentFact{}, Note: factsNote, Snapshot: rl.version,
		License: datasets.License}
	if slug != "" {
		ans.Slug = &slug
	}
	if host != "" {
		ans.Host = &host
		dir, err := rl.lookup(host)
		if err != nil {
			return nil, fmt.Errorf("agent facts %s: %w", host, err)
		}
		known := dir != nil && !unknownSources[dir.text(fSource)]
		ans.Known = &known
		if dir == nil || dir.text(fSource) == "opted-out" {
			if dir != nil {
				ans.Note = "This store opted out of the directory: its facts are not shown. " + factsNote
			}
			return ans, nil
		}
		if err := rl.hostFacts(ans, dir, slug); err != nil {
			return nil, fmt.Errorf("agent facts %s: %w", host, err)
		}
	} else {
		ans.Category = &category
		if err := rl.categoryFacts(ctx, ans, category, slug, limit); err != nil {
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
func (rl *readLayer) hostFacts(ans *AgentFactsAnswer, dir *storeRow, slug string) error {
	if rl.facts == nil {
		return fail(ErrUnavailable, "agent facts (agent_facts) are not in the published snapshot %s", rl.version)
	}
	at, n := dir.integer(fFactsRow), dir.integer(fFactsRows)
	if at == nil || n == nil {
		return nil
	}
	p := rl.facts
	return p.read(*at, int(*n), func(row parquet.Row) error {
		f := AgentFact{Fact: p.text(row, "fact")}
		if slug != "" && f.Fact != slug {
			return nil
		}
		f.Host = p.text(row, "host")
		f.Value = json.RawMessage("null")
		if v := p.str(row, "value"); v != nil && json.Valid([]byte(*v)) {
			f.Value = json.RawMessage(*v)
		}
		f.Confidence, f.EvidenceSha256, f.Evidence = p.float(row, "confidence"), p.str(row, "evidence_sha256"), p.str(row, "evidence")
		f.SourceURL, f.CheckedAt, f.Note = p.str(row, "source_url"), p.when(row, "checked_at"), p.str(row, "note")
		ans.Facts = append(ans.Facts, f)
		return nil
	})
}

// categoryFacts lists the measured facts of the first limit stores of a
// category (by host) that have any: a scan, so DuckDB.
func (rl *readLayer) categoryFacts(ctx context.Context, ans *AgentFactsAnswer, category, slug string, limit int) error {
	st, err := rl.stmt(sqlFactsCategory, "agent facts (agent_facts, stores)")
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx, category, slug, limit)
	if err != nil {
		return fmt.Errorf("agent facts %s: %w", category, err)
	}
	defer rows.Close()
	for rows.Next() {
		var f AgentFact
		var value *string
		if err := rows.Scan(&f.Host, &f.Fact, &value, &f.Confidence, &f.EvidenceSha256, &f.Evidence, &f.SourceURL, &f.CheckedAt, &f.Note); err != nil {
			return fmt.Errorf("agent facts %s: %w", category, err)
		}
		f.Value = json.RawMessage("null")
		if value != nil && json.Valid([]byte(*value)) {
			f.Value = json.RawMessage(*value)
		}
		if f.CheckedAt != nil {
			t := f.CheckedAt.UTC()
			f.CheckedAt = &t
		}
		ans.Facts = append(ans.Facts, f)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("agent facts %s: %w", category, err)
	}
	return nil
}

func (s *Server) agentFacts(w http.ResponseWriter, r *http.Request) error {
	qs := r.URL.Query()
	q := AgentFactsQuery{Host: qs.Get("host"), URL: qs.Get("url"), Category: qs.Get("category"), Slug: qs.Get("slug")}
	if v := qs.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > factsMaxLimit {
			return fail(ErrInvalid, "limit must be a number of stores from 1 to %d, not %q", factsMaxLimit, v)
		}
		q.Limit = n
	}
	download := false
	switch qs.Get("download") {
	case "", "0", "false":
	case "1", "true":
		download = true
	default:
		return fail(ErrInvalid, "download must be 1 or true (a JSON attachment), or left out")
	}
	ans, err := s.AgentFacts(r.Context(), s.caller(r), q)
	if err != nil {
		return err
	}
	if download {
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

package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets"
	"svc/fixtures"
)

// TestAggregateTablesMatchTruth checks the other store tables against the
// fixture truth.
func TestAggregateTablesMatchTruth(t *testing.T) {
	w := sharedWorld(t)
	dir, res := aggregateWorld(t, nil, AggregateOptions{
		SVC100IDs: func(string) (map[string]string, error) {
			return map[string]string{w.world.Stores[0].Host: "svc100-v1-001"}, nil
		},
	})
	byHost := map[string]*fixtures.Store{}
	for i := range w.world.Stores {
		byHost[w.world.Stores[i].Host] = &w.world.Stores[i]
	}
	counts := map[string]int{}
	for _, tc := range res.Tables {
		counts[tc.Name] = tc.Rows
	}
	n := len(w.world.Stores)
	if diff := cmp.Diff(map[string]int{"store_answers": n, "stores": n, "checks": n, "ucp_validations": n,
		"agent_facts": 5 * n, "product_data": n, "policies": 4 * n, "changes": 0}, counts); diff != "" {
		t.Errorf("row counts (-want +got):\n%s", diff)
	}

	day, _ := time.Parse(time.DateOnly, testDate)
	for _, m := range outRows(t, dir, datasets.Stores) {
		st := byHost[m["host"].(string)]
		var id any
		if st.Host == w.world.Stores[0].Host {
			id = "svc100-v1-001"
		}
		var country any
		if st.Expect.Market != nil {
			country = *st.Expect.Market
		}
		want := map[string]any{"host": st.Host, "name": st.Name, "category": st.Category, "source": st.Source,
			"country": country, "svc100_id": id, "added_on": day}
		if diff := cmp.Diff(want, m); diff != "" {
			t.Errorf("stores %s (-want +got):\n%s", st.Host, diff)
		}
	}

	for _, m := range outRows(t, dir, datasets.ProductData) {
		pd := byHost[m["host"].(string)].Expect.ProductData
		var want any
		switch {
		case pd == nil:
		case pd.Source == nil:
			want = "not_ready"
		case *productComplete(pd):
			want = "ready"
		default:
			want = "partial"
		}
		if m["vendor_readiness_status"] != want {
			t.Errorf("%s vendor_readiness_status = %v, want %v", m["host"], m["vendor_readiness_status"], want)
		}
		if (pd == nil) != (m["vendor_readiness"] == nil) || (pd == nil) != (m["product_data"] == nil) {
			t.Errorf("%s: product data measured %v, but product_data %v, vendor_readiness %v", m["host"], pd != nil, m["product_data"], m["vendor_readiness"])
		}
		if pd != nil && !cmp.Equal(strp(m["source"]), pd.Source) {
			t.Errorf("%s source = %v, want %v", m["host"], m["source"], pd.Source)
		}
		if v, _ := m["vendor_readiness"].(string); strings.Contains(strings.ToLower(v), "approved") {
			t.Errorf("%s vendor_readiness claims approval: %s", m["host"], v)
		}
	}

	for _, m := range outRows(t, dir, datasets.Policies) {
		p := byHost[m["host"].(string)].Expect.Policies
		var want any
		if p != nil {
			want = map[string]bool{"returns": p.Returns, "shipping": p.Shipping, "privacy": p.Privacy, "terms": p.Terms}[m["policy"].(string)]
		}
		if m["found"] != want {
			t.Errorf("%s policy %s found = %v, want %v", m["host"], m["policy"], m["found"], want)
		}
	}

	scores := map[string]any{}
	for _, m := range outRows(t, dir, datasets.StoreAnswers) {
		scores[m["host"].(string)] = m["score"]
	}
	for _, m := range outRows(t, dir, datasets.AgentFacts) {
		host, fact := m["host"].(string), m["fact"].(string)
		if ev, ok := m["evidence"].(string); ok {
			sum := sha256.Sum256([]byte(ev))
			if m["evidence_sha256"] != hex.EncodeToString(sum[:]) {
				t.Errorf("%s %s: evidence_sha256 %v is not the sha256 of the evidence", host, fact, m["evidence_sha256"])
			}
		} else if m["evidence_sha256"] != nil || m["value"] != nil || m["confidence"] != nil {
			t.Errorf("%s %s: a decision without evidence: %v", host, fact, m)
		}
		if m["note"] == nil {
			t.Errorf("%s %s has no note", host, fact)
		}
		switch fact {
		case "use_case_mention", "agent_friendly_description":
			e := byHost[host].Expect
			want, key := e.UseCaseMention, "mentioned"
			if fact == "agent_friendly_description" {
				want, key = e.AgentFriendlyDescription, "friendly"
			}
			if (want == nil) != (m["value"] == nil) || (m["value"] == nil) != (m["confidence"] == nil) || (m["value"] == nil) != (m["source_url"] == nil) {
				t.Errorf("%s %s = %v (confidence %v, source %v), want %v", host, fact, m["value"], m["confidence"], m["source_url"], want)
				continue
			}
			if want == nil {
				continue
			}
			var v map[string]any
			if err := json.Unmarshal([]byte(m["value"].(string)), &v); err != nil || v[key] != *want {
				t.Errorf("%s %s = %v, want %s %v", host, fact, m["value"], key, *want)
			}
			var ev map[string]any
			if err := json.Unmarshal([]byte(m["evidence"].(string)), &ev); err != nil || ev["description_text"] == "" || ev["description_source"] == nil {
				t.Errorf("%s %s: evidence %v lacks the judged text", host, fact, m["evidence"])
			}
		case "price_clarity":
			pd := byHost[host].Expect.ProductData
			var want any
			switch {
			case pd == nil:
			case pd.Source == nil:
				want = `"no_product"`
			case !pd.Price:
				want = `"no_price"`
			case !pd.Currency:
				want = `"price_without_currency"`
			default:
				want = `"clear"`
			}
			if m["value"] != want {
				t.Errorf("%s price_clarity = %v, want %v", host, m["value"], want)
			}
		case "readiness_score":
			var want any
			if s := scores[host]; s != nil {
				b, _ := json.Marshal(s)
				want = string(b)
			}
			if m["value"] != want {
				t.Errorf("%s readiness_score = %v, want the store_answers score %v", host, m["value"], want)
			}
		case "cart_blocker_suspicion":
			e := byHost[host].Expect
			if (e.Platform == nil && !isT(e.BlockStatus.Blocked)) != (m["value"] == nil) {
				t.Errorf("%s cart_blocker_suspicion = %v: measured when the store was checked as a shop or blocked", host, m["value"])
			}
			if m["value"] != nil {
				var v struct {
					Suspected bool     `json:"suspected"`
					Reasons   []string `json:"reasons"`
				}
				json.Unmarshal([]byte(m["value"].(string)), &v)
				wantBlock := isT(e.BlockStatus.Blocked)
				if slices.Contains(v.Reasons, "edge_block") != wantBlock || slices.Contains(v.Reasons, "robots_disallows_user_agents") != !*userAgentsAllowed(e) ||
					v.Suspected != (len(v.Reasons) > 0) {
					t.Errorf("%s cart_blocker_suspicion = %+v; blocked %v, user agents allowed %v", host, v, wantBlock, *userAgentsAllowed(e))
				}
			}
		default:
			t.Errorf("unknown fact %s", fact)
		}
	}

	if w.schemaDir == "" {
		return // the UCP verdicts need the schema
	}
	for _, m := range outRows(t, dir, datasets.UCPValidations) {
		e := byHost[m["host"].(string)].Expect
		if m["status"] != e.UCPProfile.Status {
			t.Errorf("%s ucp_validations.status = %v, want %s", m["host"], m["status"], e.UCPProfile.Status)
		}
		if !cmp.Equal(strp(m["declared_version"]), e.UCPProfile.Version) {
			t.Errorf("%s declared_version = %v, want %v", m["host"], m["declared_version"], e.UCPProfile.Version)
		}
	}
}

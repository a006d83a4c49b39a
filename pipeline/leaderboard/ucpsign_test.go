package leaderboard

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"svc/fixtures"
	"svc/pipeline/httpsig"
	"svc/pipeline/steplog"
)

// TestUCPPathSignatures: at every store of the fixture world that demands
// signatures, over each binding, the path gets the store's known outcome
// for how it signs: with the key the profile it names publishes (a
// checkout), unsigned (signature_missing), with a key that profile does
// not publish (key_not_found), with a key whose kid the profile gives
// another key (signature_invalid), naming the placeholder profile no host
// serves (profile_unreachable). The step log names the key id when it
// signs and holds no signature.
func TestUCPPathSignatures(t *testing.T) {
	if testing.Short() {
		t.Skip("serves the fixture world")
	}
	// The first 200 stores are the default world, whose one store that
	// demands signatures declares REST only; 1000 hold some with MCP.
	uw := startUCPWorldN(t, 1000)
	other, err := httpsig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	wrong := uw.key.PublicJWK()
	wrong.X, wrong.Y = other.PublicJWK().X, other.PublicJWK().Y
	uw.srv.SetUCP("svc-agent-nokey.test", PlatformProfile())
	uw.srv.SetUCP("svc-agent-wrong.test", PlatformProfileWithKeys(wrong))
	agents := []struct {
		agent fixtures.UCPAgent
		opts  func(tr string) RunOptions
	}{
		{fixtures.UCPAgentSigns, uw.signed},
		{fixtures.UCPAgentUnsigned, func(tr string) RunOptions { o := uw.signed(tr); o.AgentKey = nil; return o }},
		{fixtures.UCPAgentKeyUnpublished, func(tr string) RunOptions {
			o := uw.signed(tr)
			o.AgentProfile = "https://svc-agent-nokey.test" + AgentProfilePath
			return o
		}},
		{fixtures.UCPAgentWrongKey, func(tr string) RunOptions {
			o := uw.signed(tr)
			o.AgentProfile = "https://svc-agent-wrong.test" + AgentProfilePath
			return o
		}},
		{fixtures.UCPAgentProfileUnserved, func(tr string) RunOptions { o := uw.signed(tr); o.AgentProfile = ""; return o }},
	}
	type row struct {
		st        *fixtures.Store
		transport string
		agent     int
		want      fixtures.UCPPathTruth
		got       PathResult
	}
	var rows []*row
	mcp := 0
	for i := range uw.w.Stores {
		st := &uw.w.Stores[i]
		if !slices.Contains(st.Traits, "ucp_shop:signature_required") {
			continue
		}
		for _, tr := range []string{"rest", "mcp"} {
			if st.UCPPathAs(tr, fixtures.UCPAgentSigns).Outcome == OutcomeCheckoutReached && tr == "mcp" {
				mcp++
			}
			for a, ag := range agents {
				rows = append(rows, &row{st: st, transport: tr, agent: a, want: st.UCPPathAs(tr, ag.agent)})
			}
		}
	}
	if mcp == 0 {
		t.Fatal("no store that demands signatures creates a session over MCP: the MCP signing is not tested")
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, r := range rows {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			res, err := RunPathLog(context.Background(), agents[r.agent].opts(r.transport), PathUCP, "https://"+r.st.Host)
			if err != nil {
				t.Errorf("%s: %v", r.st.Host, err)
			}
			r.got = res
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, r := range rows {
		name := fmt.Sprintf("%s/%s agent %d", r.st.Host, r.transport, r.agent)
		if r.got.Outcome != r.want.Outcome || r.want.Reason != "" && r.got.Reason != r.want.Reason {
			t.Errorf("%s: got %s [%s], want %s [%s]\nlog: %+v", name, r.got.Outcome, r.got.Reason, r.want.Outcome, r.want.Reason, r.got.Log)
			continue
		}
		if r.want.Code != "" && !slices.ContainsFunc(r.got.Log, func(s steplog.Step) bool { return slices.Contains(s.Codes, r.want.Code) }) {
			t.Errorf("%s: no step shows the UCP code %s: %+v", name, r.want.Code, r.got.Log)
		}
		seen[r.got.Reason+" "+r.want.Code] = true
		signs := agents[r.agent].opts("").AgentKey != nil
		i := slices.IndexFunc(r.got.Log, func(s steplog.Step) bool { return s.Action == "sign_requests" })
		reachedBinding := slices.ContainsFunc(r.got.Log, func(s steplog.Step) bool { return s.Action == "pick_binding" && s.URL != "" })
		switch {
		case signs && reachedBinding && (i < 0 || !strings.Contains(r.got.Log[i].Note, uw.key.KeyID())):
			t.Errorf("%s: no step names the signing key %s: %+v", name, uw.key.KeyID(), r.got.Log)
		case !signs && i >= 0:
			t.Errorf("%s: a sign_requests step without a key: %+v", name, r.got.Log[i])
		}
		b, _ := json.Marshal(r.got.Log)
		for _, bad := range []string{httpsig.Label + "=", "sha-256=:", "PRIVATE KEY"} {
			if strings.Contains(string(b), bad) {
				t.Errorf("%s: the step log holds %q: %s", name, bad, b)
			}
		}
	}
	for _, want := range []string{"ucp_checkout_created ", "ucp_signature_required signature_missing", "ucp_signature_rejected key_not_found",
		"ucp_signature_rejected signature_invalid", "ucp_agent_profile_refused profile_unreachable"} {
		if !seen[want] {
			t.Errorf("no run ended %s: %v", want, seen)
		}
	}
	if traps := uw.srv.UCPTraps(); len(traps) != 0 {
		t.Errorf("the UCP path set the trap: %+v", traps)
	}
}

package ucp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// edit applies changes to the minimal test profile: each key is a
// slash-separated path of object members (created as needed), each value
// the JSON to put there, or nil to delete the member.
func edit(t *testing.T, changes map[string]any) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(profileWith("")), &doc); err != nil {
		t.Fatal(err)
	}
	for path, v := range changes {
		parts := strings.Split(path, "/")
		m := doc
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		if v == nil {
			delete(m, parts[len(parts)-1])
			continue
		}
		m[parts[len(parts)-1]] = v
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func raw(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

const (
	ecKey  = `{"kid":"k1","kty":"EC","crv":"P-256","x":"-YqhDtUzWIeykgboYhPFkpMjCKD3daUylAxCVDhY2Bc","y":"hOHeWdpjRvnk6w2e0l5DWcIiGUy-qyy5ybCUGmJHEIg","use":"sig","alg":"ES256"}`
	okpKey = `{"kid":"k2","kty":"OKP","crv":"Ed25519","x":"lKEGkXaCzEt9pUAjTqJVBCrb4Njr8-RD4cUEaq-Qu-I","alg":"EdDSA"}`
	rest   = `{"version":"2026-08-25","transport":"rest","schema":"https://ucp.dev/2026-08-25/services/shopping/rest.openapi.json","endpoint":"https://shop.test/ucp/v1"}`
	cap    = `{"version":"2026-08-25","schema":"https://ucp.dev/2026-08-25/schemas/shopping/%s.json"}`
)

func capEntry(name string) string { return strings.Replace(cap, "%s", name, 1) }

// TestRules covers the rules the shared examples do not: each case expects
// exactly these error, warning and info rules.
func TestRules(t *testing.T) {
	v := testValidator(t)
	tests := []struct {
		name                   string
		changes                map[string]any
		errors, warnings, info []string
	}{
		{name: "unknown release", changes: map[string]any{"ucp/version": "2026-05-01", "ucp/services/dev.ucp.shopping": raw(`[` + strings.ReplaceAll(rest, "2026-08-25", "2026-05-01") + `]`),
			"ucp/capabilities/dev.ucp.shopping.checkout": raw(`[` + strings.ReplaceAll(capEntry("checkout"), "2026-08-25", "2026-05-01") + `]`)},
			warnings: []string{ruleKnownRelease}},
		{name: "impossible date", changes: map[string]any{"ucp/version": "2026-02-30"}, errors: []string{ruleVersionFormat}},
		{name: "2026-04-08 dev.ucp mismatch is a warning", changes: map[string]any{"ucp/version": "2026-04-08",
			"ucp/services/dev.ucp.shopping": raw(`[` + strings.ReplaceAll(rest, "2026-08-25", "2026-04-08") + `]`)},
			warnings: []string{ruleDevUCPMatch}},
		{name: "unknown ucp member", changes: map[string]any{"ucp/extra": "x"}, warnings: []string{ruleUnknownMember}},
		{name: "legacy layout", changes: map[string]any{"payment": raw(`{"handlers":[]}`)}, info: []string{ruleLegacyShape}},
		{name: "partial parent", changes: map[string]any{"ucp/capabilities/dev.ucp.shopping.discount": raw(`[{"version":"2026-08-25","schema":"https://ucp.dev/2026-08-25/schemas/shopping/discount.json","extends":["dev.ucp.shopping.checkout","dev.ucp.shopping.cart"]}]`)},
			info: []string{rulePartialParent}},
		{name: "orphan chain", changes: map[string]any{
			"ucp/capabilities/com.example.shop.a": raw(`[{"version":"2026-01-01","schema":"https://example.com/a.json","extends":"com.example.shop.b"}]`),
			"ucp/capabilities/com.example.shop.b": raw(`[{"version":"2026-01-01","schema":"https://example.com/b.json","extends":"com.example.shop.missing"}]`)},
			errors: []string{ruleOrphan}},
		{name: "duplicate binding", changes: map[string]any{"ucp/services/dev.ucp.shopping": raw(`[` + rest + `,` + rest + `]`)}, warnings: []string{ruleDupBinding}},
		{name: "duplicate capability version", changes: map[string]any{"ucp/capabilities/dev.ucp.shopping.checkout": raw(`[` + capEntry("checkout") + `,` + capEntry("checkout") + `]`)},
			warnings: []string{ruleDupVersion}},
		{name: "handler ids", changes: map[string]any{"ucp/payment_handlers": raw(`{"com.example.pay":[{"id":"h","version":"2026-01-01"},{"id":"h","version":"2026-02-01"}]}`)},
			warnings: []string{ruleHandlerID}},
		{name: "transport schema missing and wrong", changes: map[string]any{"ucp/services/dev.ucp.shopping": raw(`[{"version":"2026-08-25","transport":"mcp","schema":"https://ucp.dev/2026-08-25/services/shopping/rest.openapi.json","endpoint":"https://shop.test/mcp"},{"version":"2026-08-25","transport":"rest","endpoint":"https://shop.test/ucp"}]`)},
			warnings: []string{ruleTransportSch}, info: []string{ruleTransportSch}},
		{name: "unpinned official schema", changes: map[string]any{"ucp/capabilities/dev.ucp.shopping.checkout": raw(`[{"version":"2026-08-25","schema":"https://ucp.dev/schemas/shopping/checkout.json"}]`)},
			warnings: []string{ruleOfficialURL}},
		{name: "shared hosting", changes: map[string]any{"ucp/capabilities/io.github.shop.gift": raw(`[{"version":"2026-01-01","schema":"https://shop.github.io/gift.json"}]`)},
			info: []string{ruleSharedSuffix}},
		{name: "ip endpoint", changes: map[string]any{"ucp/services/dev.ucp.shopping": raw(`[` + strings.Replace(rest, "shop.test", "203.0.113.7", 1) + `]`)},
			errors: []string{rulePublicHost}},
		{name: "two label service", changes: map[string]any{"ucp/services/com.example": raw(`[{"version":"2026-01-01","transport":"mcp","endpoint":"https://example.com/mcp"}]`)},
			warnings: []string{ruleNaming}},
		{name: "a2a endpoint not a card", changes: map[string]any{"ucp/services/dev.ucp.shopping": raw(`[` + rest + `,{"version":"2026-08-25","transport":"a2a","endpoint":"https://shop.test/agent"}]`)},
			info: []string{ruleA2ACard}},
		{name: "embedded config", changes: map[string]any{"ucp/services/dev.ucp.shopping": raw(`[` + rest + `,{"version":"2026-08-25","transport":"embedded","schema":"https://ucp.dev/2026-08-25/services/shopping/embedded.openrpc.json","config":{"color_scheme":["blue"]}}]`)},
			errors: []string{ruleEmbeddedCfg}},
		{name: "bad registry key", changes: map[string]any{"ucp/capabilities/Dev.UCP.Bad": raw(`[` + capEntry("checkout") + `]`)}, errors: []string{ruleKeyFormat}},
		{name: "keys fine", changes: map[string]any{"keys": raw(`[` + ecKey + `,` + okpKey + `]`)}},
		{name: "duplicate kid and no P-256", changes: map[string]any{"keys": raw(`[` + okpKey + `,` + okpKey + `]`)}, warnings: []string{ruleES256, ruleKidUnique}},
		{name: "thumbprint-looking kid", changes: map[string]any{"keys": raw(`[` + strings.Replace(ecKey, `"k1"`, `"Z_WMd3Q9BN9Is6Wj5_B_UIKt8mCg_z7EbfPcDMQTFtI"`, 1) + `]`)}, info: []string{ruleThumbprint}},
		{name: "encryption key only", changes: map[string]any{"keys": raw(`[` + strings.Replace(ecKey, `"sig"`, `"enc"`, 1) + `]`)}, info: []string{ruleUnusable}},
		{name: "short coordinate", changes: map[string]any{"keys": raw(`[` + strings.Replace(ecKey, "-YqhDtUzWIeykgboYhPFkpMjCKD3daUylAxCVDhY2Bc", "AAAA", 1) + `]`)}, errors: []string{ruleKeysEncoding}},
		{name: "point off the curve", changes: map[string]any{"keys": raw(`[` + strings.Replace(ecKey, "hOHeWdpjRvnk6w2e0l5DWcIiGUy-qyy5ybCUGmJHEIg", "iOHeWdpjRvnk6w2e0l5DWcIiGUy-qyy5ybCUGmJHEIg", 1) + `]`)}, errors: []string{ruleKeysEncoding}},
		{name: "both key arrays", changes: map[string]any{"keys": raw(`[` + ecKey + `]`), "signing_keys": raw(`[` + ecKey + `]`)}, warnings: []string{ruleKeysLocation}},
		{name: "private key in signing_keys too", changes: map[string]any{"keys": raw(`[` + ecKey + `]`), "signing_keys": raw(`[` + strings.Replace(ecKey, `"use"`, `"d":"x","use"`, 1) + `]`)},
			errors: []string{ruleKeysPrivate}, warnings: []string{ruleKeysLocation}},
		{name: "hint: no rest or mcp binding", changes: map[string]any{"ucp/services/dev.ucp.shopping": raw(`[{"version":"2026-08-25","transport":"a2a","endpoint":"https://shop.test/.well-known/agent-card.json"}]`)},
			info: []string{hintAgentBinding}},
		{name: "hint: no cart or checkout", changes: map[string]any{"ucp/capabilities": raw(`{"dev.ucp.shopping.order":[` + capEntry("order") + `]}`), "keys": raw(`[` + ecKey + `]`)},
			info: []string{hintCartOrCheckout}},
		{name: "hint: no shopping service", changes: map[string]any{"ucp/services": raw(`{}`), "ucp/capabilities": raw(`{"dev.ucp.common.identity_linking":[{"version":"2026-08-25","schema":"https://ucp.dev/2026-08-25/schemas/common/identity_linking.json","config":{"scopes":{}}}]}`)},
			info: []string{hintCartOrCheckout, hintShoppingService}},
		{name: "renamed in 2026-08-25", changes: map[string]any{"ucp/capabilities/dev.ucp.shopping.ap2_mandate": raw(`[` + capEntry("ap2_mandate") + `]`)}, warnings: []string{ruleDevUCPKnown}},
		{name: "spec on another host is fine from 2026-08-25", changes: map[string]any{"ucp/capabilities/dev.ucp.shopping.checkout": raw(`[{"version":"2026-08-25","spec":"https://docs.example.com/checkout","schema":"https://ucp.dev/2026-08-25/schemas/shopping/checkout.json"}]`)}},
		{name: "2026-04-08 spec authority", changes: map[string]any{"ucp/version": "2026-04-08",
			"ucp/services/dev.ucp.shopping":              raw(`[` + strings.ReplaceAll(rest, "2026-08-25", "2026-04-08") + `]`),
			"ucp/capabilities/dev.ucp.shopping.checkout": raw(`[{"version":"2026-04-08","spec":"https://docs.example.com/checkout","schema":"https://ucp.dev/2026-04-08/schemas/shopping/checkout.json"}]`)},
			errors: []string{ruleSpecAuthority}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := v.Validate(context.Background(), edit(t, tt.changes))
			if err != nil {
				t.Fatal(err)
			}
			got := [3][]string{rules2(r.Errors), rules2(r.Warnings), rules2(r.Info)}
			want := [3][]string{tt.errors, tt.warnings, tt.info}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("[errors warnings info] (-want +got):\n%s\n%s", diff, mustJSON(r.Errors)+mustJSON(r.Warnings)+mustJSON(r.Info))
			}
			if r.IsValid() != (len(tt.errors) == 0) {
				t.Errorf("valid = %v", r.IsValid())
			}
			for _, it := range append(append(r.Errors, r.Warnings...), r.Info...) {
				if it.SpecURL == "" || !strings.HasPrefix(it.Path, "/") && it.Path != "" {
					t.Errorf("item without spec link or pointer: %+v", it)
				}
				if strings.HasPrefix(it.Rule, "svc.hint.") != it.Hint && it.Rule != ruleKnownRelease && it.Rule != ruleLegacyShape && it.Rule != ruleContentType {
					t.Errorf("hint flag of %s = %v", it.Rule, it.Hint)
				}
			}
		})
	}
}

func TestSelfProvider(t *testing.T) {
	doc := raw(`{"ucp":{"version":"2026-08-25","services":{},"payment_handlers":{},"capabilities":{"dev.ucp.common.identity_linking":[{"version":"2026-08-25",
	  "schema":"https://ucp.dev/2026-08-25/schemas/common/identity_linking.json",
	  "config":{"scopes":{},"providers":{"com.shop.auth":[{"type":"oauth2","auth_url":"https://auth.shop.test/"}]}}}]}}}`).(map[string]any)
	var fs findings
	newChecker(doc, &fs, checkEnv{profileHost: "shop.test"}).run()
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule)
	}
	if !strings.Contains(strings.Join(got, " "), ruleSelfProvider) {
		t.Errorf("rules = %v, want %s", got, ruleSelfProvider)
	}
}

func TestCountsInDirectory(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{profileWith(""), true},
		{`{"ucp":{"version":"2026-08-25","services":{"dev.ucp.shopping":[{"transport":"rest"}]}}}`, true}, // errors elsewhere do not matter
		{`{"ucp":{"version":"2026-01-11","services":{"dev.ucp.shopping":{"version":"2026-01-11","rest":{}}}}}`, true},
		{`{"ucp":{"version":"draft","services":{"dev.ucp.shopping":[{}]}}}`, false},
		{`{"ucp":{"version":"2026-02-30","services":{"dev.ucp.shopping":[{}]}}}`, false},
		{`{"ucp":{"version":"2026-08-25","services":{}}}`, false},
		{`{"ucp":{"version":"2026-08-25","services":{"dev.ucp.shopping":[]}}}`, false},
		{`{"UCP":{"Version":"2026-08-25","services":{"dev.ucp.shopping":[{}]}}}`, false},
		{`not json`, false},
		{``, false},
	} {
		if got := CountsInDirectory([]byte(tt.in)); got != tt.want {
			t.Errorf("CountsInDirectory(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

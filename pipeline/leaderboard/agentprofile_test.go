package leaderboard

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"svc/fixtures"
	"svc/pipeline/httpsig"
	"svc/pipeline/steplog"
	"svc/pipeline/ucp"
)

// platformEntryPoint is the platform variant of the UCP profile schema
// (../shared/ucp/schema/2026-08-25/profile.json#/$defs/platform_schema).
const platformEntryPoint = "https://ucp.dev/2026-08-25/schemas/profile.json#/$defs/platform_schema"

// schemaDirLoader serves https://ucp.dev/<release>/schemas/<path> from the
// shared folder <dir>/<release>/<path>, as ../shared/ucp/RULES.md section 0
// says an offline validator must; any other URL is an error.
type schemaDirLoader struct{ dir string }

func (l schemaDirLoader) Load(u string) (any, error) {
	pu, err := url.Parse(u)
	if err != nil || pu.Host != "ucp.dev" {
		return nil, &os.PathError{Op: "load", Path: u, Err: os.ErrNotExist}
	}
	release, rel, ok := strings.Cut(strings.TrimPrefix(pu.Path, "/"), "/schemas/")
	if !ok {
		return nil, &os.PathError{Op: "load", Path: u, Err: os.ErrNotExist}
	}
	b, err := os.ReadFile(filepath.Join(l.dir, release, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// platformSchema compiles the platform profile schema of the shared
// folder, or skips.
func platformSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	dir := fixtures.UCPSchemaDir()
	if dir == "" {
		t.Skip("../shared/ucp/schema not found: no platform schema to validate against")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(schemaDirLoader{dir})
	s, err := c.Compile(platformEntryPoint)
	if err != nil {
		t.Fatalf("compile %s: %v", platformEntryPoint, err)
	}
	return s
}

// TestPlatformProfileValidates: svc's own profile is a valid UCP platform
// profile, and the schema is strict enough to refuse the slips a hand
// edit could make (so a pass means something).
func TestPlatformProfileValidates(t *testing.T) {
	s := platformSchema(t)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(PlatformProfile()))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Fatalf("svc's platform profile does not validate: %v", err)
	}
	// Each break must be caught: a service entry without spec or schema
	// (platform_schema requires both for REST and MCP), a capability
	// without spec, no payment_handlers registry, a private key.
	breaks := map[string]func(m map[string]any){
		"service without spec": func(m map[string]any) {
			delete(svc0(m), "spec")
		},
		"rest service without schema": func(m map[string]any) {
			delete(svc0(m), "schema")
		},
		"capability without spec": func(m map[string]any) {
			caps := m["ucp"].(map[string]any)["capabilities"].(map[string]any)
			delete(caps[capCheckout].([]any)[0].(map[string]any), "spec")
		},
		"no payment_handlers": func(m map[string]any) {
			delete(m["ucp"].(map[string]any), "payment_handlers")
		},
		"private key": func(m map[string]any) {
			m["keys"] = []any{map[string]any{"kid": "k", "kty": "OKP", "crv": "Ed25519", "x": "AA", "d": "AA"}}
		},
	}
	for name, edit := range breaks {
		var m map[string]any
		if err := json.Unmarshal(PlatformProfile(), &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ := json.Marshal(m)
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if s.Validate(v) == nil {
			t.Errorf("%s: the platform schema accepted it", name)
		}
	}
}

func svc0(m map[string]any) map[string]any {
	return m["ucp"].(map[string]any)["services"].(map[string]any)["dev.ucp.shopping"].([]any)[0].(map[string]any)
}

// TestPlatformProfileSaysWhatThePathDoes: the profile states the version
// the path negotiates, the transports it drives and the capabilities it
// reads, each capability's schema under ucp.dev (overview "Authority
// Binding": a dev.ucp.* schema is served from ucp.dev), and, built
// without a key, no keys.
func TestPlatformProfileSaysWhatThePathDoes(t *testing.T) {
	var p struct {
		UCP struct {
			Version         string                         `json:"version"`
			Services        map[string][]map[string]string `json:"services"`
			Capabilities    map[string][]map[string]string `json:"capabilities"`
			PaymentHandlers map[string][]map[string]any    `json:"payment_handlers"`
		} `json:"ucp"`
		Keys json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(PlatformProfile(), &p); err != nil {
		t.Fatal(err)
	}
	var d ucpDoc
	d.UCP.Version = p.UCP.Version
	if p.UCP.Version != UCPVersions[0] || negotiate(d) != p.UCP.Version {
		t.Errorf("ucp.version %q: not the version the path negotiates (%v)", p.UCP.Version, UCPVersions)
	}
	var transports []string
	for _, e := range p.UCP.Services["dev.ucp.shopping"] {
		transports = append(transports, e["transport"])
		if e["endpoint"] != "" {
			t.Errorf("%s binding declares endpoint %q: svc hosts no UCP service", e["transport"], e["endpoint"])
		}
	}
	if !slices.Equal(transports, []string{"rest", "mcp"}) || len(p.UCP.Services) != 1 {
		t.Errorf("services %v, want dev.ucp.shopping over rest and mcp", p.UCP.Services)
	}
	var names []string
	for name, es := range p.UCP.Capabilities {
		names = append(names, name)
		for _, e := range es {
			if u, err := url.Parse(e["schema"]); err != nil || u.Scheme != "https" || u.Host != "ucp.dev" ||
				!strings.HasPrefix(u.Path, "/"+p.UCP.Version+"/") || e["version"] != p.UCP.Version {
				t.Errorf("%s: schema %q version %q: want https://ucp.dev/%s/...", name, e["schema"], e["version"], p.UCP.Version)
			}
		}
	}
	slices.Sort(names)
	if want := []string{capCart, capCatalogSearch, capCheckout}; !slices.Equal(names, want) {
		t.Errorf("capabilities %v, want %v", names, want)
	}
	if len(p.UCP.PaymentHandlers) != 0 || p.Keys != nil {
		t.Errorf("payment handlers %v, keys %s: svc never pays, and no key was given", p.UCP.PaymentHandlers, p.Keys)
	}
	if got := AgentProfileURL("https://svc.example/ "); got != "https://svc.example/.well-known/ucp" {
		t.Errorf("AgentProfileURL: %q", got)
	}
	if got := AgentProfileURL(""); got != "" {
		t.Errorf("AgentProfileURL(\"\"): %q, want empty", got)
	}
}

// TestUCPPathSendsConfiguredProfile: over both bindings, a fixture UCP
// store records the configured profile URL in every operation's UCP-Agent
// (REST header or MCP meta) and the log has no fallback step; without
// one, the store records the placeholder and the log says so first.
func TestUCPPathSendsConfiguredProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("serves the fixture world")
	}
	uw := startUCPWorld(t)
	var st *fixtures.Store
	for i := range uw.w.Stores {
		s := &uw.w.Stores[i]
		if s.UCPPathAs("rest", fixtures.UCPAgentUnsigned).Reason == "ucp_checkout_created" && s.UCPPathAs("mcp", fixtures.UCPAgentUnsigned).Reason == "ucp_checkout_created" {
			st = s
			break
		}
	}
	if st == nil {
		t.Fatal("no fixture store creates a checkout over both bindings")
	}
	const mine = "https://svc.example.org/.well-known/ucp"
	for _, tc := range []struct {
		profile, want string
		fallback      bool
	}{{mine, mine, false}, {"", DefaultAgentProfile, true}} {
		for _, tr := range []string{"rest", "mcp"} {
			before := len(uw.srv.UCPOps())
			res, err := RunPathLog(context.Background(), RunOptions{Client: uw.client, UCP: uw.ucp, UCPTransport: tr, AgentProfile: tc.profile},
				PathUCP, "https://"+st.Host)
			if err != nil || res.Reason != "ucp_checkout_created" {
				t.Fatalf("%s %q: %v %s [%s] %+v", tr, tc.profile, err, res.Outcome, res.Reason, res.Log)
			}
			n := 0
			for _, op := range uw.srv.UCPOps()[before:] {
				if op.Host != st.Host || op.Op == "initialize" {
					continue
				}
				n++
				if op.Agent != tc.want {
					t.Errorf("%s %s: UCP-Agent profile %q, want %q", tr, op.Op, op.Agent, tc.want)
				}
			}
			if n < 3 {
				t.Errorf("%s: only %d operations recorded", tr, n)
			}
			i := slices.IndexFunc(res.Log, func(s steplog.Step) bool { return s.Action == "agent_profile" })
			switch {
			case tc.fallback && (i < 0 || !strings.Contains(res.Log[i].Note, DefaultAgentProfile) || !strings.Contains(res.Log[i].Note, "--agent-profile")):
				t.Errorf("%s: no step says the placeholder was sent: %+v", tr, res.Log)
			case !tc.fallback && i >= 0:
				t.Errorf("%s: a fallback step with a profile configured: %+v", tr, res.Log[i])
			}
		}
	}
}

// TestAgentProfileNote: the UCP run's notes name the profile sent, or say
// plainly that the placeholder was.
func TestAgentProfileNote(t *testing.T) {
	if n := agentProfileNote("https://svc.example/.well-known/ucp"); !strings.Contains(n, "https://svc.example/.well-known/ucp") || strings.Contains(n, "placeholder") {
		t.Errorf("configured: %q", n)
	}
	if n := agentProfileNote(""); !strings.Contains(n, "placeholder "+DefaultAgentProfile) {
		t.Errorf("fallback: %q", n)
	}
	k, _ := httpsig.GenerateKey()
	if n := signingNote(k, "https://svc.example/.well-known/ucp"); !strings.Contains(n, k.KeyID()) || !strings.Contains(n, "published") {
		t.Errorf("signed: %q", n)
	}
	if n := signingNote(k, ""); !strings.Contains(n, k.KeyID()) || !strings.Contains(n, "refuses") {
		t.Errorf("signed, placeholder profile: %q", n)
	}
	if n := signingNote(nil, "https://svc.example/.well-known/ucp"); !strings.Contains(n, "not signed") {
		t.Errorf("unsigned: %q", n)
	}
}

// TestPlatformProfilePublishesTheKey: the profile `svc serve` answers with
// svc's key publishes that key's public JWK and nothing private. It is a
// valid platform profile (when the shared schemas are here), and svc's own
// UCP validator finds nothing to say about its keys, while it does report
// the same profile with a private member or a kid that is not the key's
// thumbprint (so its silence means something).
func TestPlatformProfilePublishesTheKey(t *testing.T) {
	key, err := httpsig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	doc := PlatformProfileWithKeys(key.PublicJWK())
	var p struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal(doc, &p); err != nil || len(p.Keys) != 1 {
		t.Fatalf("keys %v %v", p.Keys, err)
	}
	k := p.Keys[0]
	want := key.PublicJWK()
	if k["kid"] != key.KeyID() || k["kty"] != "EC" || k["crv"] != "P-256" || k["x"] != want.X || k["y"] != want.Y || k["alg"] != "ES256" || k["use"] != "sig" {
		t.Errorf("published key %v, want %+v", k, want)
	}
	if len(k) != 7 {
		t.Errorf("published key has members %v: want kid kty crv x y use alg only", k)
	}
	if string(PlatformProfileWithKeys(key.PublicJWK())) != string(doc) || string(PlatformProfileWithKeys()) != string(PlatformProfile()) {
		t.Error("the profile is not the same bytes for the same keys")
	}

	v, err := ucp.New(context.Background(), ucp.Config{SchemaDir: fixtures.UCPSchemaDir(), Offline: true, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	keyRules := func(doc []byte) []string {
		t.Helper()
		rep, err := v.Validate(context.Background(), doc)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, items := range [][]ucp.Item{rep.Errors, rep.Warnings, rep.Info} {
			for _, it := range items {
				if strings.HasPrefix(it.Rule, "ucp.keys.") {
					out = append(out, it.Rule)
				}
			}
		}
		return out
	}
	if got := keyRules(doc); len(got) != 0 {
		t.Errorf("the validator reports svc's published key: %v", got)
	}
	edit := func(f func(k map[string]any)) []byte {
		var m map[string]any
		_ = json.Unmarshal(doc, &m)
		f(m["keys"].([]any)[0].(map[string]any))
		b, _ := json.Marshal(m)
		return b
	}
	other, _ := httpsig.GenerateKey()
	for _, c := range []struct {
		name string
		doc  []byte
		rule string
	}{
		{"with d", edit(func(k map[string]any) { k["d"] = "UpuF81l-kOxbjf7T4mNSv0r5tN67Gim7rnf6EFpcYDs" }), "ucp.keys.no_private"},
		{"another key's thumbprint as kid", edit(func(k map[string]any) { k["kid"] = other.KeyID() }), "ucp.keys.thumbprint_kid"},
	} {
		if got := keyRules(c.doc); !slices.Contains(got, c.rule) {
			t.Errorf("%s: the validator reports %v, want %s", c.name, got, c.rule)
		}
	}

	if fixtures.UCPSchemaDir() == "" {
		t.Log("../shared/ucp/schema not found: the platform schema check is skipped")
		return
	}
	s := platformSchema(t)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("svc's platform profile with its key does not validate: %v", err)
	}
	priv, _ := jsonschema.UnmarshalJSON(bytes.NewReader(edit(func(k map[string]any) { k["d"] = "AA" })))
	if s.Validate(priv) == nil {
		t.Error("the platform schema accepts a key with d")
	}
}

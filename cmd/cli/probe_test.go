package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svc/fixtures"
	"svc/pipeline/check"
)

// probeWorld serves the fixture world and writes its CA, as `svc fixtures
// serve` does for tools outside the project.
func probeWorld(t *testing.T) (world *fixtures.World, addr, ca string) {
	t.Helper()
	world = fixtures.Generate(1, fixtures.DefaultStores)
	ca = filepath.Join(t.TempDir(), "ca.pem")
	srv, err := fixtures.NewServer(world, fixtures.ServerOptions{CAOut: ca, Slow: 8 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return world, srv.Addr(), ca
}

// storeWith returns the first store of the world showing trait.
func storeWith(t *testing.T, w *fixtures.World, trait string) fixtures.Store {
	t.Helper()
	for _, s := range w.Stores {
		for _, tr := range s.Traits {
			if tr == trait {
				return s
			}
		}
	}
	t.Fatalf("no store with trait %s", trait)
	return fixtures.Store{}
}

func TestProbeExitCodes(t *testing.T) {
	world, addr, ca := probeWorld(t)
	fx := []string{"--data", t.TempDir(), "--fixture-addr", addr, "--fixture-ca", ca}
	if d := fixtures.UCPSchemaDir(); d != "" {
		fx = append(fx, "--ucp-schema-dir", d)
	}
	good := world.Stores[0]
	http500 := storeWith(t, world, "unreachable:http_500")

	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string // substring of stdout
		err  string // substring of stderr
	}{
		{"store checked, JSON", append([]string{"probe", "--json", "https://" + good.Host + "/"}, fx...), 0, `"cartLink"`, ""},
		{"store checked, table", append([]string{"probe", "https://" + good.Host + "/"}, fx...), 0, "cart link", ""},
		{"store unreachable", append([]string{"probe", "https://" + http500.Host + "/"}, fx...), 2, "", "could not be reached"},
		{"no such fixture host", append([]string{"probe", "https://no-such-store.test/"}, fx...), 0, "", ""},
		{"loopback refused", append([]string{"probe", "http://127.0.0.1/"}, fx...), 64, "", "loopback"},
		{"private refused", []string{"probe", "http://10.0.0.1/"}, 64, "", "private"},
		{"scheme refused", []string{"probe", "ftp://shop.example/"}, 64, "", "only http and https"},
		{"no argument", []string{"probe"}, 64, "", "accepts 1 arg"},
		{"unknown flag", []string{"probe", "--nope", "x"}, 64, "", "unknown flag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runSvc(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.out) {
				t.Errorf("stdout lacks %q:\n%s", tc.out, stdout)
			}
			if !strings.Contains(stderr, tc.err) {
				t.Errorf("stderr lacks %q:\n%s", tc.err, stderr)
			}
		})
	}

	// The JSON is the engine's result, with the store's known answers.
	_, stdout, _ := runSvc(t, append([]string{"probe", "--json", "https://" + good.Host + "/"}, fx...)...)
	var r check.Result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("probe --json is not a result: %v", err)
	}
	if r.Host != good.Host || r.CartLink == nil || good.Expect.CartLink == nil || *r.CartLink != *good.Expect.CartLink {
		t.Errorf("probe --json: host %s cartLink %v, want %s %v", r.Host, r.CartLink, good.Host, good.Expect.CartLink)
	}
	if strings.Contains(stdout, "checkout_url") || strings.Contains(stdout, "/checkouts/") {
		t.Error("probe output contains a checkout URL")
	}
}

func TestProbeFixtureCAWithoutAddr(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, []byte("x"), 0o644)
	if code, _, stderr := runSvc(t, "probe", "--fixture-ca", ca, "https://shop.example/"); code != 64 {
		t.Errorf("exit %d, want 64 (%s)", code, stderr)
	}
}

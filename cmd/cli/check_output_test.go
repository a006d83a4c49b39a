package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"svc/fixtures"
)

// TestCheckJSONShape pins the --json document: field order and the values
// of one passing and one failing host.
func TestCheckJSONShape(t *testing.T) {
	canned := newCannedAPI(t)
	code, stdout, _ := runSvc(t, "check", "--api", canned.URL, "--json", "--require", "ucp,checkout", "good.test", "limited.test")
	if code != 3 {
		t.Fatalf("exit %d, want 3", code)
	}
	want := `{
  "version": "svc-check/1",
  "api": "` + canned.URL + `",
  "require": [
    "ucp",
    "checkout"
  ],
  "hosts": [
    {
      "host": "good.test",
      "passed": true,
      "checks": {
        "ucp": {
          "status": "pass",
          "required": true,
          "detail": "valid UCP profile (version 2026-08-25), 1 warning"
        },
        "webmcp": {
          "status": "pass",
          "required": false,
          "detail": "WebMCP tools in the server HTML: search_catalog"
        },
        "catalog": {
          "status": "pass",
          "required": false,
          "detail": "catalog answered (storefront_mcp), product found"
        },
        "checkout": {
          "status": "pass",
          "required": true,
          "detail": "the cart returned a checkout link (a boolean; the URL is never kept)"
        },
        "mcp": {
          "status": "pass",
          "required": false,
          "detail": "storefront MCP endpoint answered (2 tools)"
        },
        "robots": {
          "status": "pass",
          "required": false,
          "detail": "user-initiated AI agents allowed: ChatGPT-User, Claude-User"
        },
        "product-data": {
          "status": "pass",
          "required": false,
          "detail": "complete product data (jsonld)"
        },
        "policies": {
          "status": "pass",
          "required": false,
          "detail": "returns, shipping, privacy and terms pages found"
        }
      },
      "savedCheck": {
        "checkedAt": "2026-11-20T10:00:00Z",
        "cached": true,
        "resultUrl": "/stores/good.test/"
      },
      "errors": []
    },
    {
      "host": "limited.test",
      "passed": false,
      "checks": {
        "ucp": {
          "status": "pass",
          "required": true,
          "detail": "valid UCP profile (version 2026-08-25), 1 warning"
        },
        "webmcp": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "catalog": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "checkout": {
          "status": "unmeasured",
          "required": true,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "mcp": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "robots": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "product-data": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        },
        "policies": {
          "status": "unmeasured",
          "required": false,
          "detail": "not checked: rate limited by the API: daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        }
      },
      "savedCheck": null,
      "errors": [
        {
          "endpoint": "/api/agent-checkout",
          "status": 429,
          "code": "rate_limited",
          "message": "daily limit reached: 10 fresh_checks per UTC day for your network; it resets at 00:00 UTC"
        }
      ]
    }
  ],
  "passed": false,
  "exitCode": 3
}
`
	if d := cmp.Diff(want, stdout); d != "" {
		t.Errorf("--json (-want +got):\n%s", d)
	}
}

// TestCheckDetails pins the detail of every rule of the mapping that the
// fixture world does not show: the canned bad, blocked, parked and weird
// hosts.
func TestCheckDetails(t *testing.T) {
	canned := newCannedAPI(t)
	_, stdout, _ := runSvc(t, "check", "--api", canned.URL, "--json", "bad.test", "blocked.test", "parked.test", "weird.test")
	var doc checkDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, h := range doc.Hosts {
		for n, c := range h.Checks {
			got[h.Host+" "+n] = c.Status + ": " + c.Detail
		}
	}
	want := map[string]string{
		"bad.test ucp":              "fail: invalid UCP profile: 5 errors (ucp.keys.shape, ucp.version.format, ucp.url.spec_https, …)",
		"bad.test webmcp":           "fail: no WebMCP in the server HTML",
		"bad.test catalog":          "unmeasured: catalog answered (products_json|x) but throttled; no product seen",
		"bad.test checkout":         "fail: no checkout link from the cart",
		"bad.test mcp":              "fail: no storefront MCP endpoint",
		"bad.test robots":           "fail: robots.txt disallows Claude-User, Perplexity-User",
		"bad.test product-data":     "fail: incomplete product data (jsonld): no price, gtin or sku",
		"bad.test policies":         "fail: no policy page found for returns, terms",
		"blocked.test ucp":          "unmeasured: the profile could not be read (HTTP 403)",
		"blocked.test webmcp":       "unmeasured: the store blocked the check (cloudflare)",
		"blocked.test catalog":      "unmeasured: the store blocked the check (cloudflare)",
		"blocked.test checkout":     "unmeasured: the store blocked the check (cloudflare)",
		"blocked.test mcp":          "unmeasured: the store blocked the check (cloudflare)",
		"blocked.test robots":       "pass: user-initiated AI agents allowed: ChatGPT-User",
		"blocked.test product-data": "unmeasured: the store blocked the check (cloudflare)",
		"blocked.test policies":     "unmeasured: the store blocked the check (cloudflare)",
		"parked.test ucp":           "fail: no UCP profile at https://parked.test/.well-known/ucp (HTTP 404)",
		"parked.test webmcp":        "unmeasured: the host is a parked domain",
		"parked.test catalog":       "unmeasured: the host is a parked domain",
		"parked.test checkout":      "unmeasured: the host is a parked domain",
		"parked.test mcp":           "unmeasured: the host is a parked domain",
		"parked.test robots":        "pass: no robots.txt: no restrictions",
		"parked.test product-data":  "unmeasured: the host is a parked domain",
		"parked.test policies":      "unmeasured: the host is a parked domain",
		"weird.test ucp":            "unmeasured: the validation report has no verdict",
		"weird.test webmcp":         "unmeasured: the store could not be reached (tls bad line)",
		"weird.test catalog":        "unmeasured: the store could not be reached (tls bad line)",
		"weird.test checkout":       "unmeasured: the store could not be reached (tls bad line)",
		"weird.test mcp":            "unmeasured: the store could not be reached (tls bad line)",
		"weird.test robots":         "unmeasured: the store could not be reached (tls bad line)",
		"weird.test product-data":   "unmeasured: the store could not be reached (tls bad line)",
		"weird.test policies":       "unmeasured: the store could not be reached (tls bad line)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("details (-want +got):\n%s", d)
	}
}

// nodeBin returns the node binary, or skips the test when there is none
// (or it is older than Node 18, which has no global fetch).
func nodeBin(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the Node client svc-check.mjs is not tested")
	}
	out, err := exec.Command(node, "--version").Output()
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	major, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	if err != nil || major < 18 {
		t.Skipf("node %s is older than 18: the Node client svc-check.mjs is not tested", v)
	}
	return node
}

const nodeScript = "../svc-check/svc-check.mjs"

// runNode runs the Node client.
func runNode(t *testing.T, node string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(node, append([]string{nodeScript}, args...)...)
	cmd.Env = append(append(os.Environ(), "SVC_API="), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("node: %v", err)
	}
	return code, out.String(), errOut.String()
}

// TestCheckParity runs every case through both clients against the same
// canned API: the exit codes, the table or JSON and the summary must be the
// same bytes.
func TestCheckParity(t *testing.T) {
	node := nodeBin(t)
	for _, tc := range checkCases() {
		t.Run(tc.name, func(t *testing.T) {
			canned := newCannedAPI(t)
			args, env, summary := tc.argv(t, canned.URL, closedURL(t))
			t.Setenv("SVC_API", "")
			for _, kv := range env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			goCode, goOut, goErr := runSvc(t, append([]string{"check"}, args...)...)
			var goSummary []byte
			if summary != "" {
				goSummary, _ = os.ReadFile(summary)
				os.Remove(summary)
			}
			nodeCode, nodeOut, nodeErr := runNode(t, node, env, args...)
			if goCode != nodeCode {
				t.Fatalf("exit: go %d, node %d\ngo stderr:\n%s\nnode stderr:\n%s", goCode, nodeCode, goErr, nodeErr)
			}
			if goCode == 64 {
				return // usage text differs by design (cobra's, the script's)
			}
			if d := cmp.Diff(goOut, nodeOut); d != "" {
				t.Errorf("stdout (-go +node):\n%s\nnode stderr:\n%s", d, nodeErr)
			}
			if summary != "" {
				nodeSummary, _ := os.ReadFile(summary)
				if d := cmp.Diff(string(goSummary), string(nodeSummary)); d != "" {
					t.Errorf("summary (-go +node):\n%s", d)
				}
			}
		})
	}
}

// TestCheckParityFixtureWorld compares the two clients' JSON, table and
// summary against the real API over the fixture world (the first run fills
// the 24-hour cache, so both then read the same saved checks). The API
// allows 50 live-check reads a day per network: this test makes 38.
func TestCheckParityFixtureWorld(t *testing.T) {
	node := nodeBin(t)
	world := fixtures.Generate(1, fixtures.DefaultStores)
	api := checkAPI(t, world)
	args := []string{"--api", api, "--require", "all"}
	for _, s := range checkOracleHosts(t, world) {
		args = append(args, s.Host)
	}
	if code, _, stderr := runSvc(t, append([]string{"check"}, args...)...); code != 1 {
		t.Fatalf("warm-up run: exit %d\n%s", code, stderr)
	}
	for _, run := range []struct {
		mode  string
		hosts int
	}{{"--json", 10}, {"--json=false", 4}} {
		mode := run.mode
		dir := t.TempDir()
		a := append(append([]string{}, args[:4+run.hosts]...), mode, "--summary", filepath.Join(dir, "go.md"))
		goCode, goOut, _ := runSvc(t, append([]string{"check"}, a...)...)
		a[len(a)-1] = filepath.Join(dir, "node.md")
		nodeCode, nodeOut, nodeErr := runNode(t, node, nil, a...)
		if goCode != 1 || nodeCode != 1 {
			t.Errorf("%s: exit go %d node %d, want 1\n%s", mode, goCode, nodeCode, nodeErr)
		}
		if d := cmp.Diff(goOut, nodeOut); d != "" {
			t.Errorf("%s: stdout (-go +node):\n%s", mode, d)
		}
		goMD, _ := os.ReadFile(filepath.Join(dir, "go.md"))
		nodeMD, _ := os.ReadFile(filepath.Join(dir, "node.md"))
		if d := cmp.Diff(string(goMD), string(nodeMD)); d != "" || len(goMD) == 0 {
			t.Errorf("%s: summary (-go +node):\n%s", mode, d)
		}
	}
}

// TestCheckNodeTestRunner runs the Node client's own tests (node --test)
// with the real API over the fixture world in SVC_CHECK_TEST_API and the
// statuses its hosts must show in SVC_CHECK_TEST_EXPECT. This is how
// `make test` runs them.
func TestCheckNodeTestRunner(t *testing.T) {
	node := nodeBin(t)
	world := fixtures.Generate(1, fixtures.DefaultStores)
	api := checkAPI(t, world)
	expect := map[string]map[string]string{}
	for _, s := range checkOracleHosts(t, world) {
		want := oracle(s.Expect)
		if fixtures.UCPSchemaDir() == "" {
			delete(want, "ucp")
		}
		expect[s.Host] = want
	}
	b, _ := json.Marshal(expect)
	cmd := exec.Command(node, "--test", "svc-check.test.mjs")
	cmd.Dir = filepath.Dir(nodeScript)
	cmd.Env = append(os.Environ(), "SVC_API=", "SVC_CHECK_TEST_API="+api, "SVC_CHECK_TEST_EXPECT="+string(b))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^# fail 0$`).Match(out) || regexp.MustCompile(`(?m)^# skipped [1-9]`).Match(out) {
		t.Errorf("node --test did not run every test:\n%s", out)
	}
	t.Logf("%s", out)
}

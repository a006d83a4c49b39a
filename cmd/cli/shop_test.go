package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svc/fixtures"
	"svc/pipeline/shop/browser"
)

func TestShopCommand(t *testing.T) {
	world, addr, ca := probeWorld(t)
	fx := []string{"--data", t.TempDir(), "--fixture-addr", addr, "--fixture-ca", ca}
	good := world.Stores[0]
	http500 := storeWith(t, world, "unreachable:http_500")
	hasBrowser := browser.FindExecPath() != ""
	if !hasBrowser && os.Getenv("CI") == "true" {
		t.Fatal("CI=true but no Chromium found: the browser paths of svc shop are not tested")
	}
	shot := filepath.Join(t.TempDir(), "last.jpg")

	for _, tc := range []struct {
		name    string
		args    []string
		browser bool
		code    int
		outcome string // of the JSON report, when code is 0 or 2
		err     string // substring of stderr
		text    string // substring of a human report (no --json)
	}{
		{"A, human report", append([]string{"shop", "--shopper", "A", "https://svcshop-login.test/"}, fx...), true, 0, "", "", "added_to_cart (checkout_login_required)"},
		{"A reaches checkout", append([]string{"shop", "--json", "--shopper", "A", "--screenshot", shot, "https://svcshop-form.test/"}, fx...), true, 0, "checkout_reached", "", ""},
		{"B cannot see an icon button", append([]string{"shop", "--json", "--shopper", "b", "https://svcshop-icon.test/"}, fx...), true, 0, "no_cart", "", ""},
		{"E on a phone", append([]string{"shop", "--json", "--shopper", "E", "https://svcshop-drawer.test/"}, fx...), true, 0, "checkout_reached", "", ""},
		{"A blocked by a wall", append([]string{"shop", "--json", "--shopper", "A", "https://svcshop-wall.test/"}, fx...), true, 0, "blocked", "", ""},
		{"A, store answers 500", append([]string{"shop", "--json", "--shopper", "A", "https://" + http500.Host + "/"}, fx...), true, 2, "error", "", ""},
		{"D without a model", append([]string{"shop", "--json", "--shopper", "D", "https://svcshop-form.test/"}, fx...), false, 0, "not_attempted", "", ""},
		{"ucp path, human step log", append([]string{"shop", "--shopper", "ucp", "--ucp-schema-dir", fixtures.UCPSchemaDir(), "--ucp-offline",
			"https://" + good.Host + "/"}, fx...), false, 0, "", "", "checkout_reached (ucp_checkout_created)"},
		{"mcp path", append([]string{"shop", "--json", "--shopper", "mcp", "https://" + good.Host + "/"}, fx...), false, 0, "", "", ""},
		{"mcp, store answers 500", append([]string{"shop", "--json", "--shopper", "mcp", "https://" + http500.Host + "/"}, fx...), false, 2, "error", "", ""},
		{"a loopback URL", append([]string{"shop", "--shopper", "A", "http://127.0.0.1:9/"}, fx...), false, 64, "", "loopback", ""},
		{"a checkout URL", append([]string{"shop", "--shopper", "A", "https://svcshop-form.test/checkout?token=ck_secret_token"}, fx...), false, 64, "", "not at a checkout address", ""},
		{"no shopper", append([]string{"shop", "https://svcshop-form.test/"}, fx...), false, 64, "", "--shopper is required", ""},
		{"unknown shopper", append([]string{"shop", "--shopper", "Z", "https://svcshop-form.test/"}, fx...), false, 64, "", "want A, B, C, D, E, ucp or mcp", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.browser && !hasBrowser {
				t.Skip("no Chromium found (install Debian's chromium package, or set SVC_CHROMIUM)")
			}
			if strings.HasPrefix(tc.name, "ucp") && fixtures.UCPSchemaDir() == "" {
				t.Skip("../shared/ucp/schema not found: the UCP path needs the schemas")
			}
			var out, errOut bytes.Buffer
			code := Run(t.Context(), tc.args, &out, &errOut)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errOut.String())
			}
			if tc.err != "" && !strings.Contains(errOut.String(), tc.err) {
				t.Errorf("stderr %q lacks %q", errOut.String(), tc.err)
			}
			for _, s := range []string{out.String(), errOut.String()} {
				if strings.Contains(s, "ck_secret_token") || strings.Contains(s, "token=") {
					t.Errorf("a checkout address was printed:\n%s", s)
				}
			}
			if tc.code == 64 {
				return
			}
			if tc.text != "" {
				if !strings.Contains(out.String(), tc.text) || !strings.Contains(out.String(), "stopped before payment") {
					t.Errorf("the report lacks %q:\n%s", tc.text, out.String())
				}
				// The UCP step log names each operation with its status,
				// and no session id or continue URL.
				if strings.HasPrefix(tc.name, "ucp") {
					for _, want := range []string{"create_checkout [HTTP 201]", "get_checkout [HTTP 200]", "cancel_checkout [HTTP 200]"} {
						if !strings.Contains(out.String(), want) {
							t.Errorf("the step log lacks %q:\n%s", want, out.String())
						}
					}
					if strings.Contains(out.String(), "chk_") || strings.Contains(out.String(), "continue") || strings.Contains(out.String(), "complete_checkout") || strings.Contains(out.String(), "/complete") {
						t.Errorf("the step log leaks an id, a continue URL or a complete call:\n%s", out.String())
					}
				}
				return
			}
			var rep struct {
				Outcome string   `json:"outcome"`
				Shopper string   `json:"shopper"`
				Steps   *int     `json:"steps"`
				Seconds *float64 `json:"seconds"`
				Log     []struct {
					Action string `json:"action"`
				} `json:"log"`
				Screenshot *struct {
					SHA256 string `json:"sha256"`
				} `json:"screenshot"`
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("stdout is not one JSON object: %v\n%s", err, out.String())
			}
			if rep.Steps == nil || rep.Seconds == nil || rep.Shopper == "" || rep.Log == nil || *rep.Steps != len(rep.Log) {
				t.Errorf("the report lacks the contract fields: %s", out.String())
			}
			if tc.outcome != "" && rep.Outcome != tc.outcome {
				t.Errorf("outcome %s, want %s\n%s", rep.Outcome, tc.outcome, out.String())
			}
			if tc.name == "A reaches checkout" {
				b, err := os.ReadFile(shot)
				if err != nil || rep.Screenshot == nil {
					t.Fatalf("screenshot: %v, %v", err, rep.Screenshot)
				}
				sum := sha256.Sum256(b)
				if hex.EncodeToString(sum[:]) != rep.Screenshot.SHA256 || len(b) > 100<<10 || !bytes.HasPrefix(b, []byte{0xff, 0xd8}) {
					t.Errorf("the screenshot file (%d bytes) is not the small JPEG the report names", len(b))
				}
			}
		})
	}
}

// TestShopStageWithoutChromium: the stage form of svc shop without a
// Chromium says so plainly, fails, and starts no journal.
func TestShopStageWithoutChromium(t *testing.T) {
	t.Setenv("SVC_CHROMIUM", filepath.Join(t.TempDir(), "no-chromium"))
	data := t.TempDir()
	var out, errOut bytes.Buffer
	code := Run(t.Context(), []string{"shop", "--data", data, "--run", "r1"}, &out, &errOut)
	if code != ExitFailed || !strings.Contains(errOut.String(), "chromium not found: the browser lane is unmeasured") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(data, "work", "r1", "shop")); !os.IsNotExist(err) {
		t.Errorf("the stage left a shop folder: %v", err)
	}
}

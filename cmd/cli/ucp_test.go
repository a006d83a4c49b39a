package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ucpSchemaDir is SVC_UCP_SCHEMA_DIR or ../shared/ucp/schema beside the
// repository root, or "" when neither exists.
func ucpSchemaDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("SVC_UCP_SCHEMA_DIR"); d != "" {
		return d
	}
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "ucp", "schema")
			if _, err := os.Stat(d); err == nil {
				return d
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

const ucpTestProfile = `{"ucp": {"version": "2026-08-25",
  "services": {"dev.ucp.shopping": [{"version": "2026-08-25", "spec": "https://ucp.dev/2026-08-25/specification/overview/",
    "transport": "rest", "schema": "https://ucp.dev/2026-08-25/services/shopping/rest.openapi.json",
    "endpoint": "https://shop.example.com/ucp/v1"}]},
  "capabilities": {"dev.ucp.shopping.checkout": [{"version": "2026-08-25",
    "spec": "https://ucp.dev/2026-08-25/specification/shopping/checkout",
    "schema": "SCHEMA"}]},
  "payment_handlers": {}}}`

func writeProfile(t *testing.T, name, schemaURL string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.Replace(ucpTestProfile, "SCHEMA", schemaURL, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runSvc(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUCPValidateExitCodes(t *testing.T) {
	schema := ucpSchemaDir(t)
	if schema == "" {
		t.Skip("no UCP schema folder: set SVC_UCP_SCHEMA_DIR or provide ../shared/ucp/schema")
	}
	valid := writeProfile(t, "valid.json", "https://ucp.dev/2026-08-25/schemas/shopping/checkout.json")
	invalid := writeProfile(t, "invalid.json", "https://cdn.example.net/checkout.json")
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, bytes.Repeat([]byte(" "), 300<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		want     int
		wantOut  string
		wantErr  string
		jsonOut  bool
		validity *bool
	}{
		{name: "valid file", args: []string{valid}, want: ExitOK, wantOut: "verdict   VALID"},
		{name: "valid file json", args: []string{valid, "--json"}, want: ExitOK, jsonOut: true, validity: ptrBool(true)},
		{name: "invalid file", args: []string{invalid}, want: ExitFailed, wantOut: "ucp.namespace.authority"},
		{name: "invalid file json", args: []string{"--json", invalid}, want: ExitFailed, jsonOut: true, validity: ptrBool(false)},
		{name: "unreachable", args: []string{"--fixture-addr", "127.0.0.1:1", "https://nowhere.test/"}, want: ExitUnreachable, wantOut: "no answer"},
		{name: "no argument", args: []string{}, want: ExitUsage, wantErr: "accepts 1 arg"},
		{name: "two arguments", args: []string{valid, invalid}, want: ExitUsage, wantErr: "accepts 1 arg"},
		{name: "missing file", args: []string{"no-such-profile.json"}, want: ExitUsage, wantErr: "no-such-profile.json"},
		{name: "unsafe URL", args: []string{"http://127.0.0.1/.well-known/ucp"}, want: ExitUsage, wantErr: "loopback"},
		{name: "too large file", args: []string{big}, want: ExitUsage, wantErr: "larger than 256 KB"},
		{name: "bad flag", args: []string{"--nope", valid}, want: ExitUsage, wantErr: "unknown flag"},
		{name: "bad schema folder", args: []string{valid, "--ucp-schema-dir", t.TempDir()}, want: ExitUsage, wantErr: "--ucp-schema-dir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--data", data, "ucp", "validate", "--ucp-schema-dir", schema}, tt.args...)
			code, out, errOut := runSvc(t, args...)
			if code != tt.want {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.want, out, errOut)
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout does not contain %q:\n%s", tt.wantOut, out)
			}
			if !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.wantErr, errOut)
			}
			if tt.jsonOut {
				var r struct {
					Valid  *bool          `json:"valid"`
					Schema map[string]any `json:"schema"`
					Note   string         `json:"note"`
				}
				if err := json.Unmarshal([]byte(out), &r); err != nil {
					t.Fatalf("--json output is not JSON: %v\n%s", err, out)
				}
				if r.Valid == nil || *r.Valid != *tt.validity || r.Note == "" || r.Schema == nil {
					t.Errorf("report: %s", out)
				}
			}
		})
	}
}

func TestUCPValidateStdin(t *testing.T) {
	schema := ucpSchemaDir(t)
	if schema == "" {
		t.Skip("no UCP schema folder")
	}
	f := writeProfile(t, "stdin.json", "https://ucp.dev/2026-08-25/schemas/shopping/checkout.json")
	in, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	old := os.Stdin
	os.Stdin = in
	defer func() { os.Stdin = old }()
	code, out, errOut := runSvc(t, "--data", t.TempDir(), "ucp", "validate", "--ucp-schema-dir", schema, "-")
	if code != ExitOK || !strings.Contains(out, "pasted") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

func ptrBool(b bool) *bool { return &b }

package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// mcpInspectorVersion is the MCP Inspector release .ci/run installs into
// the cache mcpInspector looks in; tests never download it.
const mcpInspectorVersion = "2.12.0"

// mcpInspector finds the MCP Inspector's launcher: $SVC_MCP_INSPECTOR, else
// the one .ci/run installs under ~/.cache/svc-mcp-inspector. Without Node
// the test is skipped; without the Inspector it is skipped too, except in
// CI (CI=true), where a missing Inspector is a failure.
func mcpInspector(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the MCP Inspector CLI test needs Node.js")
	}
	bin := os.Getenv("SVC_MCP_INSPECTOR")
	if bin == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Skip("no home directory to find the MCP Inspector in; set SVC_MCP_INSPECTOR")
		}
		bin = filepath.Join(home, ".cache", "svc-mcp-inspector", "node_modules", ".bin", "mcp-inspector")
	}
	if _, err := os.Stat(bin); err != nil {
		msg := "the MCP Inspector CLI is not at " + bin + ": run .ci/run, or npm install --prefix ~/.cache/svc-mcp-inspector " +
			"@modelcontextprotocol/inspector@" + mcpInspectorVersion + ", or set SVC_MCP_INSPECTOR to its mcp-inspector"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// TestMCPInspectorCLI runs the official MCP Inspector CLI (the client of
// issue 16, which listed no tools) against svc serve over the fixture
// snapshot: tools/list names the 16 tools of spec 4.3, and tools/call
// answers.
func TestMCPInspectorCLI(t *testing.T) {
	f := sharedReadFixture(t) // skipped with -short, before any Inspector check
	bin := mcpInspector(t)
	// The live paths (can_agent_checkout, validate_ucp_profile by URL,
	// submit_store) reach the fixture world; the reads use the snapshot.
	_, eng, v, client := fixtureEngineClient(t)
	ts := f.newServer(t, Config{Engine: eng, UCP: v, Client: client})
	host := f.world.Stores[0].Host
	// A store of the world that the directory does not hold, for
	// submit_store (every generated store is in the snapshot's directory,
	// so the answer is already_listed: a real, complete call either way).
	other := f.world.Stores[1].Host
	home := t.TempDir() // the Inspector keeps a catalog under HOME
	run := func(args ...string) []byte {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, append([]string{"--cli", ts.ts.URL + "/api/ask", "--transport", "http"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"), "NO_COLOR=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("mcp-inspector %s: %v\nstdout: %.2000s\nstderr: %.2000s", strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
		}
		return stdout.Bytes()
	}

	out := run("--method", "tools/list")
	var list struct {
		Tools []struct {
			Name        string
			Description string
			InputSchema map[string]any
		}
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("tools/list output is not JSON: %v: %.500s", err, out)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema["type"] != "object" {
			t.Errorf("%s: description %q, input schema %v", tool.Name, tool.Description, tool.InputSchema)
		}
	}
	slices.Sort(names)
	want := []string{ // spec 4.3
		"agent_commerce_adoption", "agent_leaderboard", "ask_svc", "can_agent_checkout", "dataset_info",
		"find_agent_ready_stores", "get_agent_facts", "list_category_agent_facts", "precheck", "product_data_check",
		"protocol_matrix", "store_card", "submit_leaderboard_run", "submit_store", "validate_ucp_profile",
		"vendor_checkout_readiness",
	}
	if !slices.Equal(names, want) {
		t.Errorf("tools/list through the Inspector: %v\nwant %v", names, want)
	}

	var called []string
	for _, c := range []struct {
		tool string
		args []string
		has  string // a key of the tool's data
	}{
		// Every tool of spec 4.3, each with the arguments a client sends.
		{"agent_commerce_adoption", nil, `"asOf"`},
		{"agent_leaderboard", []string{"include_stores=true"}, `"svc100-v1-100"`},
		{"ask_svc", []string{"url=https://" + host + "/"}, `"agents_can_buy"`},
		{"can_agent_checkout", []string{"url=https://" + host + "/"}, `"cartLink"`},
		{"dataset_info", nil, `"sha256"`},
		{"find_agent_ready_stores", []string{"limit=3"}, `"stores"`},
		{"get_agent_facts", []string{"host=" + host}, `"facts"`},
		{"list_category_agent_facts", []string{"category=" + f.world.Stores[0].Category, "limit=2"}, `"facts"`},
		{"precheck", []string{"url=https://" + host + "/"}, `"reachable_checkout"`},
		{"product_data_check", []string{"host=" + host}, `"productData"`},
		{"protocol_matrix", []string{"protocol=ucp"}, `"stages"`},
		{"store_card", []string{"host=" + host}, `"badgeUrl"`},
		{"submit_leaderboard_run", []string{"spec=svc-leaderboard-submission/v1", "test_set=SVC-100 v1",
			`agent={"name":"inspector-cli-test","path":"other"}`, `run={"stopped_before_payment":true}`,
			"results=" + inspectorResults(10)}, `"unverified"`},
		{"submit_store", []string{"url=https://" + other + "/"}, `"already_listed"`},
		{"validate_ucp_profile", []string{"url=https://" + host + "/"}, `"schemaSource"`},
		{"vendor_checkout_readiness", []string{"host=" + host}, `"vendorReadiness"`},
	} {
		called = append(called, c.tool)
		args := []string{"--method", "tools/call", "--tool-name", c.tool}
		if len(c.args) > 0 {
			args = append(append(args, "--tool-arg"), c.args...)
		}
		out := run(args...)
		var res struct {
			Content []struct{ Type, Text string }
			IsError bool
		}
		if err := json.Unmarshal(out, &res); err != nil || res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, c.has) {
			t.Errorf("tools/call %s through the Inspector: %v %.500s", c.tool, err, out)
		}
	}
	if !slices.Equal(called, want) {
		t.Errorf("tools called through the Inspector: %v\nwant every tool %v", called, want)
	}
}

func inspectorResults(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":"svc100-v1-%03d","outcome":"no_cart"}`, i)
	}
	b.WriteString("]")
	return b.String()
}

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestCheckFlags parses `svc check` command lines through the runF hook:
// the options must hold the flags and SVC_API, and nothing may run.
func TestCheckFlags(t *testing.T) {
	t.Setenv("SVC_API", "https://env.example/")
	for _, tc := range []struct {
		args []string
		want string // required, API, timeout, json, summary, targets
	}{
		{[]string{"shop.example"}, `["ucp" "webmcp"] "https://env.example" 120 false "" [{shop.example https://shop.example/}]`},
		{[]string{"--require", "all", "--json", "--summary", "s.md", "--api", "http://127.0.0.1:9/", "--timeout", "0.5", "A.example", "a.example"},
			`["ucp" "webmcp" "catalog" "checkout" "mcp" "robots" "product-data" "policies"] "http://127.0.0.1:9" 0.5 true "s.md" [{a.example https://a.example/}]`},
	} {
		var got *checkOptions
		var out, errOut bytes.Buffer
		cmd := newCheckCmdWith(&globals{context: context.Background(), out: &out, errOut: &errOut}, func(o *checkOptions) error {
			got = o
			return nil
		})
		cmd.SetArgs(tc.args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		s := fmt.Sprintf("%q %q %v %v %q %v", got.required, got.apiBase, got.timeoutSec, got.json, got.summary, got.targets)
		if s != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.args, s, tc.want)
		}
		if out.Len() != 0 || errOut.Len() != 0 {
			t.Errorf("%q: the hook ran and still printed %q %q", tc.args, out.String(), errOut.String())
		}
	}

	// A bad flag value is a usage error before the hook.
	called := false
	cmd := newCheckCmdWith(&globals{context: context.Background(), out: &bytes.Buffer{}, errOut: &bytes.Buffer{}}, func(*checkOptions) error {
		called = true
		return nil
	})
	cmd.SetArgs([]string{"--require", "nope", "shop.example"})
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	var ue *usageError
	if err := cmd.Execute(); !errors.As(err, &ue) || called {
		t.Errorf("--require nope: %v, hook called %v; want a usage error and no call", err, called)
	}
}

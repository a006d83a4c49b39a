package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/fixtures"
	"svc/pipeline/fetch"
)

// serveOutput is a bytes.Buffer safe to read while a command writes it.
type serveOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *serveOutput) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *serveOutput) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestFixturesList(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, out string)
	}{
		{"csv", []string{"fixtures", "list", "--csv"}, func(t *testing.T, out string) {
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"host", "name", "category", "source"}, rows[0]); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			if len(rows) != fixtures.DefaultStores+1 {
				t.Errorf("%d rows; want %d", len(rows), fixtures.DefaultStores+1)
			}
		}},
		{"json", []string{"fixtures", "list", "--json", "--seed", "3", "--stores", "150"}, func(t *testing.T, out string) {
			var doc struct {
				Seed   int64 `json:"seed"`
				Count  int   `json:"count"`
				Stores []struct {
					Host   string            `json:"host"`
					Traits []string          `json:"traits"`
					Expect fixtures.Expect   `json:"expect"`
					Extra  map[string]string `json:"-"`
				} `json:"stores"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			want := fixtures.Generate(3, 150)
			if doc.Seed != 3 || doc.Count != 150 || len(doc.Stores) != 150 {
				t.Fatalf("seed %d, count %d, %d stores; want 3, 150, 150", doc.Seed, doc.Count, len(doc.Stores))
			}
			for i, st := range doc.Stores {
				if diff := cmp.Diff(want.Stores[i].Expect, st.Expect); diff != "" || st.Host != want.Stores[i].Host {
					t.Fatalf("store %d %s (-want +got):\n%s", i, st.Host, diff)
				}
			}
		}},
		{"table", []string{"fixtures", "list", "--stores", "10"}, func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 11 || !strings.HasPrefix(lines[0], "HOST") || !strings.Contains(lines[1], "platform:shopify") {
				t.Errorf("table:\n%s", out)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := Run(t.Context(), tc.args, &out, &errOut); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			tc.check(t, out.String())
		})
	}
}

func TestFixturesUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"fixtures", "list", "--json", "--csv"},
		{"fixtures", "list", "--stores", "0"},
		{"fixtures", "list", "--stores", "x"},
		{"fixtures", "serve", "--addr", "0.0.0.0:8443"},
		{"fixtures", "serve", "--addr", "example.com:8443"},
		{"fixtures", "serve", "--addr", "127.0.0.1"},
		{"fixtures", "serve", "--addr", "127.0.0.1:0", "--slow", "0s"},
		{"fixtures", "serve", "--stores", "1000000"},
		{"fixtures", "list", "extra"},
		{"fixtures", "lab", "--addr", "0.0.0.0:8444"},
		{"fixtures", "lab", "--addr", "127.0.0.1:99999"},
		{"fixtures", "lab", "--only", "magento"},
		{"fixtures", "lab", "extra"},
	} {
		var out, errOut bytes.Buffer
		if code := Run(t.Context(), args, &out, &errOut); code != ExitUsage {
			t.Errorf("%v: exit %d; want %d (%s)", args, code, ExitUsage, errOut.String())
		}
	}
}

var listeningLine = regexp.MustCompile(`listening on (\S+) `)

// TestFixturesServe runs the command as a user would, fetches a store over
// both schemes with the fixture flags' options, and stops it by cancelling.
func TestFixturesServe(t *testing.T) {
	data := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errOut serveOutput
	code := make(chan int, 1)
	go func() {
		code <- Run(ctx, []string{"fixtures", "serve", "--data", data, "--addr", "127.0.0.1:0", "--stores", "150"}, &out, &errOut)
	}()
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listeningLine.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
		}
		select {
		case c := <-code:
			t.Fatalf("serve exited with %d: %s", c, errOut.String())
		default:
		}
	}
	if addr == "" {
		t.Fatalf("serve did not report its address: %q", out.String())
	}
	caPath := filepath.Join(data, "fixtures", "ca.pem")
	if !strings.Contains(out.String(), "CA certificate: "+caPath) {
		t.Errorf("output does not name the CA file %s:\n%s", caPath, out.String())
	}
	ca, err := os.ReadFile(caPath)
	if err != nil {
		t.Fatal(err)
	}
	c, err := fetch.New(fetch.Options{FixtureAddr: addr, FixtureCA: ca})
	if err != nil {
		t.Fatal(err)
	}
	host := fixtures.Generate(1, 1).Stores[0].Host
	for _, scheme := range []string{"http", "https"} {
		r, err := c.Get(t.Context(), scheme+"://"+host+"/robots.txt")
		if err != nil || r.StatusCode != 200 {
			t.Errorf("%s robots.txt: %v %v", scheme, r, err)
		}
	}
	cancel()
	select {
	case c := <-code:
		if c != ExitOK {
			t.Errorf("serve exited with %d after cancel: %s", c, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
}

package ucp

import (
	"context"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svc/pipeline/fetch"
)

// offlineResolver fails every lookup, so the official source cannot be
// reached and no test touches the internet.
type offlineResolver struct{}

func (offlineResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "offline", Name: host, IsNotFound: true}
}

func offlineClient(t *testing.T) *fetch.Client {
	t.Helper()
	c, err := fetch.New(fetch.Options{Resolver: offlineResolver{}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOfficialSourceUnavailable(t *testing.T) {
	v, err := New(context.Background(), Config{CacheDir: t.TempDir(), Client: offlineClient(t)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Validate(context.Background(), []byte(profileWith("")))
	if err != nil {
		t.Fatal(err)
	}
	if r.IsValid() || r.Schema.Checked || r.Schema.Valid != nil || r.Schema.Error == "" || r.SchemaSource.Type != "official" {
		t.Errorf("want an unchecked schema and no verdict of valid: %s", mustJSON(r))
	}
	if len(r.Errors) != 0 {
		t.Errorf("the rules should still run and find nothing: %v", r.Errors)
	}
}

// TestOfficialSourceCache reads the schemas from the cache a previous fetch
// left, without any network.
func TestOfficialSourceCache(t *testing.T) {
	src := schemaDir()
	if src == "" {
		t.Skip("no UCP schema folder")
	}
	cache := t.TempDir()
	for _, rel := range []string{TargetRelease, "draft"} {
		err := filepath.WalkDir(filepath.Join(src, rel), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			r, _ := filepath.Rel(src, p)
			return writeFileAtomic(filepath.Join(cache, r), b)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	v, err := New(context.Background(), Config{CacheDir: cache, Client: offlineClient(t)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Validate(context.Background(), []byte(profileWith("")))
	if err != nil {
		t.Fatal(err)
	}
	if !r.IsValid() || !r.Schema.Checked {
		t.Errorf("want valid from the cached schemas: %s", mustJSON(r))
	}
}

func TestBadSchemaFolder(t *testing.T) {
	_, err := New(context.Background(), Config{SchemaDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "profile.json") {
		t.Errorf("err = %v, want an error naming the missing profile.json", err)
	}
}

func TestSplitSchemaURL(t *testing.T) {
	for _, u := range []string{
		"https://ucp.dev/2026-08-25/schemas/../../etc/passwd.json", "https://ucp.dev/2026-08-25/schemas//x.json",
		"https://evil.example/2026-08-25/schemas/x.json", "https://ucp.dev/latest/schemas/x.json",
		"https://ucp.dev/2026-08-25/schemas/x.yaml", "https://ucp.dev/2026-08-25/schemas/a b.json",
	} {
		if _, _, err := splitSchemaURL(u); err == nil {
			t.Errorf("splitSchemaURL(%q) accepted", u)
		}
	}
	rel, p, err := splitSchemaURL("https://ucp.dev/draft/schemas/common/types/link.json")
	if err != nil || rel != "draft" || p != "common/types/link.json" {
		t.Errorf("got %q %q %v", rel, p, err)
	}
}

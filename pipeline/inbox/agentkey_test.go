package inbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"svc/pipeline/inbox/pgtest"
)

// TestAgentKeyFolder: the key is created on first use as a 0600 file,
// kept across opens (a later fresh key is ignored), agreed on by racing
// first uses, shared by the server's open inbox and the pipeline's
// folder read, and refused when others may read it.
func TestAgentKeyFolder(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state")
	first, err := AgentKey(ctx, dir, []byte("key-1"))
	if err != nil || string(first) != "key-1" {
		t.Fatalf("first use: %q %v", first, err)
	}
	fi, err := os.Stat(filepath.Join(dir, AgentKeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v %v, want 0600", fi.Mode(), err)
	}
	if again, err := AgentKey(ctx, dir, []byte("key-2")); err != nil || string(again) != "key-1" {
		t.Fatalf("second use: %q %v, want the first key", again, err)
	}
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got, err := l.AgentKey(ctx, []byte("key-3")); err != nil || string(got) != "key-1" {
		t.Fatalf("the server's inbox reads %q %v, want the pipeline's key", got, err)
	}
	// Racing first uses: one wins, all read it.
	race := filepath.Join(t.TempDir(), "state")
	var wg sync.WaitGroup
	got := make([][]byte, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = AgentKey(ctx, race, []byte(fmt.Sprintf("key-%d", i)))
		}()
	}
	wg.Wait()
	for i := range got {
		if len(got[i]) == 0 || !bytes.Equal(got[i], got[0]) {
			t.Fatalf("racing first uses disagree: %q", got)
		}
	}
	if err := os.Chmod(filepath.Join(dir, AgentKeyFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := AgentKey(ctx, dir, nil); err == nil {
		t.Error("a key file others can read was used")
	}
	if _, err := AgentKey(ctx, filepath.Join(t.TempDir(), "empty"), nil); err == nil {
		t.Error("no key kept, none given: no error")
	}
}

// TestAgentKeyPostgres: the pipeline's first use migrates a database no
// server has opened yet and stores the key once; replicas and later uses
// read that key.
func TestAgentKeyPostgres(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	first, err := AgentKey(ctx, url, []byte("key-1"))
	if err != nil || string(first) != "key-1" {
		t.Fatalf("first use on a fresh database: %q %v", first, err)
	}
	if again, err := AgentKey(ctx, url, []byte("key-2")); err != nil || string(again) != "key-1" {
		t.Fatalf("second use: %q %v", again, err)
	}
	a, b := openPG(t, url), openPG(t, url)
	for _, p := range []*Postgres{a, b} {
		if got, err := p.AgentKey(ctx, []byte("key-3")); err != nil || string(got) != "key-1" {
			t.Fatalf("a replica reads %q %v", got, err)
		}
	}
	fresh := pgtest.URL(t)
	var wg sync.WaitGroup
	got := make([][]byte, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = AgentKey(ctx, fresh, []byte(fmt.Sprintf("key-%d", i)))
		}()
	}
	wg.Wait()
	for i := range got {
		if len(got[i]) == 0 || !bytes.Equal(got[i], got[0]) {
			t.Fatalf("racing first uses disagree: %q", got)
		}
	}
}

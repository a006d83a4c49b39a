package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"svc/datasets"
)

// The crash test runs the test binary again as a helper process that
// publishes snapshots in a loop, and kills it with SIGKILL at random
// moments. After every kill, data/latest must resolve to a complete
// version whose files all match its manifest.
const (
	crashDirEnv  = "SVC_PUBLISH_CRASH_DIR"
	crashOnceEnv = "SVC_PUBLISH_CRASH_ONCE"
	crashKills   = 20
)

// crashSnapshot is a function of the version only, so a helper that
// restarts on a version it had already committed re-publishes the same
// bytes.
func crashSnapshot(t testing.TB, version string) *Snapshot {
	date := version[:10]
	rows := storeRows(20_000, version)
	return &Snapshot{
		Version:       version,
		MethodVersion: "crash-test",
		Tables:        []*datasets.Columns{columns(t, datasets.StoreAnswers, rows)},
		Files: []File{
			{Path: "api/agent-checkout/adoption.json", Data: []byte(`{"asOf":"` + date + `"}`)},
		},
		Weekly: &Edition{Date: date, Body: []byte(`{"date":"` + date + `"}`)},
	}
}

func nextVersion(latest string) string {
	if latest == "" {
		return "2026-01-01"
	}
	d, _ := time.Parse(time.DateOnly, latest[:10])
	return d.AddDate(0, 0, 1).Format(time.DateOnly)
}

// TestCrashHelper is the helper process; it does nothing in a normal run.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("helper process for TestCrashSafety")
	}
	ctx := context.Background()
	st, err := NewDirStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	for {
		latest, err := st.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		v := nextVersion(latest)
		if _, err := Publish(ctx, st, crashSnapshot(t, v)); err != nil {
			t.Fatal(err)
		}
		fmt.Println("published", v) // the parent waits on these lines
		if os.Getenv(crashOnceEnv) != "" {
			return
		}
	}
}

func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a helper process 20 times")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "public")
	st, err := NewDirStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	helper := func(once bool) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
		if once {
			cmd.Env = append(cmd.Env, crashOnceEnv+"=1")
		}
		return cmd
	}
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	for i := range crashKills {
		cmd := helper(false)
		out := &syncBuilder{}
		published := make(chan struct{}, 64)
		cmd.Stdout, cmd.Stderr = &lineSignal{w: out, published: published}, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Every other kill first waits for the helper to finish a
		// publication, so the kills interleave with publishing however
		// slowly a loaded machine starts the helper; then a random delay
		// lands the kill anywhere in the next one.
		if i%2 == 1 {
			select {
			case <-published:
			case <-time.After(time.Minute):
				t.Fatalf("kill %d: the helper published nothing in a minute:\n%s", i, out)
			}
		}
		time.Sleep(time.Duration(20+rng.IntN(400)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		err := cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != -1 {
			t.Fatalf("kill %d: helper ended on its own (%v):\n%s", i, err, out)
		}
		latest := checkServed(t, st)
		seen[latest] = true
		t.Logf("kill %d: latest = %q", i, latest)
	}
	if len(seen) < 3 {
		t.Errorf("latest moved through only %d versions in %d kills: the kills did not interleave with publishing", len(seen), crashKills)
	}

	// A clean run afterwards completes, and leaves no temporaries.
	if out, err := helper(true).CombinedOutput(); err != nil {
		t.Fatalf("helper after the kills: %v\n%s", err, out)
	}
	checkServed(t, st)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), tmpPrefix) {
			return fmt.Errorf("temporary %s left after a clean run", p)
		}
		return err
	})
	if err != nil {
		t.Error(err)
	}
	_ = ctx
}

// checkServed checks what a reader would see now: latest/ resolves to a
// complete version whose files match its manifest, as does every committed
// version folder.
func checkServed(t *testing.T, st *DirStore) string {
	t.Helper()
	ctx := context.Background()
	latest, err := st.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest != "" {
		// Through the alias, as the server reads it.
		m, err := Verify(ctx, st, latest)
		if err != nil {
			t.Fatalf("latest %s: %v", latest, err)
		}
		if b, err := os.ReadFile(filepath.Join(st.Root(), "data", "latest", "manifest.json")); err != nil || !strings.Contains(string(b), `"version": "`+latest+`"`) {
			t.Fatalf("data/latest/manifest.json: %v", err)
		}
		for _, f := range m.Files {
			if err := checkFile(ctx, st, "data/latest/"+f.Path, f); err != nil {
				t.Fatalf("through latest/: %v", err)
			}
		}
	}
	names, err := st.List(ctx, "data")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if ValidVersion(n) {
			if _, err := Verify(ctx, st, n); err != nil {
				t.Fatalf("committed version %s is incomplete: %v", n, err)
			}
		}
	}
	return latest
}

// syncBuilder is a strings.Builder safe for the two writers of a helper
// process (its stdout and stderr copiers).
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lineSignal passes a helper's output on and signals every "published"
// line it sees.
type lineSignal struct {
	w         *syncBuilder
	published chan struct{}
	partial   []byte
}

func (l *lineSignal) Write(p []byte) (int, error) {
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		if bytes.HasPrefix(l.partial[:i], []byte("published ")) {
			select {
			case l.published <- struct{}{}:
			default:
			}
		}
		l.partial = l.partial[i+1:]
	}
	return l.w.Write(p)
}

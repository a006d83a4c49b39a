package publish

// Tests of the checks before commit: the publish gate, versions that only
// move forward, and staged files read back.

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"svc/datasets"
)

func TestGateRefuses(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		tamper func(t *testing.T, st *DirStore)
		snap   func(t *testing.T) *Snapshot
		want   error
	}{
		{
			name: "older version",
			snap: func(t *testing.T) *Snapshot { return testSnapshot(t, "2026-05-03") },
			want: ErrGate,
		},
		{
			name: "older than a version latest does not name",
			tamper: func(t *testing.T, st *DirStore) {
				// A crash after the commit of 2026-05-20, before latest moved.
				if err := os.Mkdir(filepath.Join(st.Root(), "data", "2026-05-20"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			snap: func(t *testing.T) *Snapshot { return testSnapshot(t, "2026-05-11") },
			want: ErrGate,
		},
		{
			name: "table disappears",
			snap: func(t *testing.T) *Snapshot {
				s := testSnapshot(t, "2026-05-11")
				s.Tables = s.Tables[1:]
				return s
			},
			want: ErrGate,
		},
		{
			name: "previous version file changed",
			tamper: func(t *testing.T, st *DirStore) {
				p := filepath.Join(st.Root(), "data", "2026-05-04", "stores.csv")
				if err := os.WriteFile(p, []byte("host\r\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			snap: func(t *testing.T) *Snapshot { return testSnapshot(t, "2026-05-11") },
			want: ErrGate,
		},
		{
			name: "previous version file removed",
			tamper: func(t *testing.T, st *DirStore) {
				if err := os.Remove(filepath.Join(st.Root(), "data", "2026-05-04", "stores.parquet")); err != nil {
					t.Fatal(err)
				}
			},
			snap: func(t *testing.T) *Snapshot { return testSnapshot(t, "2026-05-11") },
			want: ErrGate,
		},
		{
			name: "published api file removed",
			tamper: func(t *testing.T, st *DirStore) {
				if err := os.Remove(filepath.Join(st.Root(), "api", "protocols.json")); err != nil {
					t.Fatal(err)
				}
			},
			snap: func(t *testing.T) *Snapshot {
				s := testSnapshot(t, "2026-05-11")
				s.Files = s.Files[:1] // no longer publishes protocols.json
				return s
			},
			want: ErrGate,
		},
		{
			name: "frozen edition changed on disk",
			tamper: func(t *testing.T, st *DirStore) {
				p := filepath.Join(st.Root(), "api", "weekly", "agent-checkout", "2026-05-04.json")
				if err := os.WriteFile(p, []byte(`{}`), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			snap: func(t *testing.T) *Snapshot { return testSnapshot(t, "2026-05-11") },
			want: ErrGate,
		},
		{
			name: "same version, other content",
			snap: func(t *testing.T) *Snapshot {
				s := testSnapshot(t, "2026-05-04")
				s.Tables[1] = columns(t, datasets.StoreAnswers, storeRows(301, "2026-05-04"))
				return s
			},
			want: ErrVersionExists,
		},
		{
			name: "same version, other method version",
			snap: func(t *testing.T) *Snapshot {
				s := testSnapshot(t, "2026-05-04")
				s.MethodVersion = "2026.06"
				return s
			},
			want: ErrVersionExists,
		},
		{
			name: "frozen edition rewritten",
			snap: func(t *testing.T) *Snapshot {
				s := testSnapshot(t, "2026-05-11")
				s.Weekly = &Edition{Date: "2026-05-04", Body: []byte(`{"changed":true}`)}
				return s
			},
			want: ErrFrozen,
		},
		{
			name: "frozen SVC-100 file rewritten",
			snap: func(t *testing.T) *Snapshot {
				s := testSnapshot(t, "2026-05-11")
				s.Files[2].Data = []byte("id,host\r\n")
				return s
			},
			want: ErrFrozen,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			mustPublish(t, st, testSnapshot(t, "2026-05-04"))
			if tc.tamper != nil {
				tc.tamper(t, st)
			}
			before := tree(t, st.Root())
			_, err := Publish(ctx, st, tc.snap(t))
			if !errors.Is(err, tc.want) {
				t.Fatalf("Publish() = %v, want %v", err, tc.want)
			}
			t.Logf("refused: %v", err)
			if diff := cmp.Diff(before, tree(t, st.Root())); diff != "" {
				t.Errorf("a refused publish changed the tree (-before +after):\n%.2000s", diff)
			}
			if v, err := st.Latest(ctx); err != nil || v != "2026-05-04" {
				t.Errorf("latest = %q, %v; want 2026-05-04", v, err)
			}
		})
	}
}

func TestVersionsMoveForward(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	for _, v := range []string{"2026-05-04", "2026-05-04.1", "2026-05-04.2", "2026-05-11"} {
		res := mustPublish(t, st, testSnapshot(t, v))
		if !res.Created || !res.LatestMoved {
			t.Errorf("%s: created %v latest moved %v", v, res.Created, res.LatestMoved)
		}
		if got, _ := st.Latest(ctx); got != v {
			t.Errorf("latest = %s, want %s", got, v)
		}
	}
	if _, err := Publish(ctx, st, testSnapshot(t, "2026-05-04.3")); !errors.Is(err, ErrGate) {
		t.Errorf("publishing 2026-05-04.3 after 2026-05-11: %v, want ErrGate", err)
	}
	for _, v := range []string{"2026-05-04", "2026-05-04.1", "2026-05-04.2", "2026-05-11"} {
		if _, err := Verify(ctx, st, v); err != nil {
			t.Error(err)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	ordered := []string{"2025-12-31", "2026-05-04", "2026-05-04.1", "2026-05-04.2", "2026-05-04.10", "2026-05-05"}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := CompareVersions(a, b); got != want {
				t.Errorf("CompareVersions(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	for _, bad := range []string{"", "latest", "2026-05-04.", "2026-05-04.01", "2026-05-04.1000", "2026-13-01", "20260504", "2026-05-04-1"} {
		if ValidVersion(bad) {
			t.Errorf("ValidVersion(%q) = true", bad)
		}
	}
}

// TestCheckLocal: a local staged file is checked by its size and its
// Parquet footer's row count.
func TestCheckLocal(t *testing.T) {
	c, err := datasets.FromRows(datasets.Stores, []datasets.Row{{"a.test", "A", "beauty", "seed", "US", nil, nil}})
	if err != nil {
		t.Fatal(err)
	}
	var pq bytes.Buffer
	if err := datasets.WriteParquet(&pq, c); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stores.parquet")
	if err := os.WriteFile(path, pq.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	size := int64(pq.Len())
	for _, v := range []struct {
		bytes, rows int64
		parquet     bool
		ok          bool
	}{
		{size, 1, true, true},
		{size, 2, true, false},      // another row count
		{size + 1, 1, true, false},  // another size
		{size - 1, 0, false, false}, // another size, not Parquet
		{size, 0, false, true},      // not Parquet: the size alone
	} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		err = checkLocal(f, FileEntry{Path: "stores.parquet", Bytes: v.bytes}, v.rows, v.parquet)
		f.Close()
		if v.ok != (err == nil) || err != nil && !errors.Is(err, ErrMismatch) {
			t.Errorf("%d bytes, %d rows, Parquet %v: %v", v.bytes, v.rows, v.parquet, err)
		}
	}
	if _, ok := any(&dirVersion{}).(localFiles); !ok {
		t.Error("a folder's version writer is not checked as local files")
	}
}

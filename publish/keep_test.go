package publish

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestKeepPublishedEdition publishes a second snapshot of one day whose
// edition differs from the one published (issue 17.8): the published
// edition is kept byte for byte, the rest of the snapshot is published,
// and the manifest and the result say the edition was kept. The gate still
// refuses the changed edition when it is given as is.
func TestKeepPublishedEdition(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	first := testSnapshot(t, "2026-05-04")
	mustPublish(t, st, first)
	frozen := string(readFile(t, st, WeeklyDir+"/2026-05-04.json"))

	second := testSnapshot(t, "2026-05-04.1")
	second.Files[0].Data = []byte(`{"asOf":"2026-05-04","license":"CC-BY-4.0","rerun":true}`)
	second.Weekly = &Edition{Date: "2026-05-04", Body: []byte(`{"schema":"svc-weekly-agent-checkout/1","date":"2026-05-04","n":2}`)}

	// Given as is, the changed edition is refused, and nothing moves.
	if _, err := Publish(ctx, st, second); !errors.Is(err, ErrFrozen) {
		t.Fatalf("publishing a changed edition: %v, want ErrFrozen", err)
	}

	ed, note, err := KeepPublishedEdition(ctx, st, second.Weekly)
	if err != nil {
		t.Fatal(err)
	}
	if string(ed.Body) != frozen || ed.Date != "2026-05-04" {
		t.Fatalf("kept edition %s %s, want the published %s", ed.Date, ed.Body, frozen)
	}
	for _, want := range []string{"2026-05-04", "frozen", "kept unchanged", sha256Hex([]byte(frozen))} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q: %s", want, note)
		}
	}
	second.Weekly, second.Notes = ed, []string{note}
	res := mustPublish(t, st, second)
	if !res.Created || !res.LatestMoved || res.Manifest.Version != "2026-05-04.1" {
		t.Errorf("second snapshot: created %v, latest moved %v, version %s", res.Created, res.LatestMoved, res.Manifest.Version)
	}
	if got := string(readFile(t, st, WeeklyDir+"/2026-05-04.json")); got != frozen {
		t.Errorf("edition changed: %s", got)
	}
	if got := string(readFile(t, st, WeeklyLatest)); got != frozen {
		t.Errorf("weekly alias = %s, want the kept edition", got)
	}
	if got := string(readFile(t, st, "api/agent-checkout/adoption.json")); !strings.Contains(got, "rerun") {
		t.Errorf("the rest of the snapshot was not published: adoption.json = %s", got)
	}
	m, _, err := ReadManifest(ctx, st, "2026-05-04.1")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Notes) != 1 || m.Notes[0] != note || len(res.Notes) != 1 || res.Notes[0] != note {
		t.Errorf("manifest notes %q, result notes %q, want [%q]", m.Notes, res.Notes, note)
	}
	if m0, _, _ := ReadManifest(ctx, st, "2026-05-04"); m0 == nil || m0.Notes != nil {
		t.Errorf("the first manifest has notes: %+v", m0)
	}

	// The same bytes, an edition of a new date or none: nothing to keep.
	for _, ed := range []*Edition{
		{Date: "2026-05-04", Body: []byte(frozen)},
		{Date: "2026-05-11", Body: []byte(`{"b":2}`)},
		nil,
	} {
		got, note, err := KeepPublishedEdition(ctx, st, ed)
		if err != nil || got != ed || note != "" {
			t.Errorf("KeepPublishedEdition(%v) = %v, %q, %v; want the edition itself and no note", ed, got, note, err)
		}
	}
	if _, _, err := KeepPublishedEdition(ctx, st, &Edition{Date: "../x", Body: []byte(`{}`)}); err == nil {
		t.Error("a bad date was read")
	}
}

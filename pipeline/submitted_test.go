package pipeline

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/pipeline/inbox"
)

func TestMergeSubmitted(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state")
	log, err := inbox.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for i, rec := range []inbox.StoreSubmission{
		{Hosts: []inbox.SubmittedHost{{Host: "new.example", Category: "pets"}, {Host: "seed.example", Category: "home"}}},
		{Hosts: []inbox.SubmittedHost{{Host: "new.example", Category: "kids"}, {Host: "Second.Example"}, {Host: "http://127.0.0.1/"}}},
		{Hosts: []inbox.SubmittedHost{{Host: "late.example"}}}, // after the run started
	} {
		if err := log.Append(ctx, inbox.TypeStoreSubmission, t0.Add(time.Duration(i)*time.Hour), rec); err != nil {
			t.Fatal(err)
		}
	}
	// Records of other types are not stores.
	if err := log.Append(ctx, inbox.TypeCheck, t0, map[string]string{"host": "checked.example"}); err != nil {
		t.Fatal(err)
	}
	log.Close()

	csv := []Store{{Host: "seed.example", Name: "Seed", Category: "apparel", Source: "seed"}}
	got, added, err := MergeSubmitted(ctx, csv, inbox.DirReader(dir), t0.Add(90*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := []Store{
		{Host: "seed.example", Name: "Seed", Category: "apparel", Source: "seed"}, // the CSV wins
		{Host: "new.example", Category: "pets", Source: SourceSubmitted},          // the first submission wins
		{Host: "second.example", Source: SourceSubmitted},
	}
	if diff := cmp.Diff(want, got); diff != "" || added != 2 {
		t.Errorf("merged (-want +got), added %d:\n%s", added, diff)
	}
	if len(csv) != 1 {
		t.Error("MergeSubmitted changed its input")
	}

	// No bound: the late submission joins too.
	all, err := ReadSubmittedStores(ctx, inbox.DirReader(dir), time.Time{})
	if err != nil || len(all) != 4 || all[3].Host != "late.example" {
		t.Errorf("unbounded: %v %+v", err, all)
	}
	// A data folder without a state log has no submissions.
	got, added, err = MergeSubmitted(ctx, csv, inbox.DirReader(filepath.Join(t.TempDir(), "state")), time.Time{})
	if err != nil || added != 0 || len(got) != 1 {
		t.Errorf("no log: %v %d %+v", err, added, got)
	}
}

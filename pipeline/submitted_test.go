package pipeline

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/serve/state"
)

func TestMergeSubmitted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	log, err := state.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for i, rec := range []StoreSubmissionRecord{
		{Hosts: []SubmittedHost{{Host: "new.example", Category: "pets"}, {Host: "seed.example", Category: "home"}}},
		{Hosts: []SubmittedHost{{Host: "new.example", Category: "kids"}, {Host: "Second.Example"}, {Host: "http://127.0.0.1/"}}},
		{Hosts: []SubmittedHost{{Host: "late.example"}}}, // after the run started
	} {
		if err := log.Append(StoreSubmissionRecordType, t0.Add(time.Duration(i)*time.Hour), rec); err != nil {
			t.Fatal(err)
		}
	}
	// Records of other types are not stores.
	if err := log.Append("check", t0, map[string]string{"host": "checked.example"}); err != nil {
		t.Fatal(err)
	}
	log.Close()

	csv := []Store{{Host: "seed.example", Name: "Seed", Category: "apparel", Source: "seed"}}
	got, added, err := MergeSubmitted(csv, dir, t0.Add(90*time.Minute))
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
	all, err := ReadSubmittedStores(dir, time.Time{})
	if err != nil || len(all) != 4 || all[3].Host != "late.example" {
		t.Errorf("unbounded: %v %+v", err, all)
	}
	// A data folder without a state log has no submissions.
	got, added, err = MergeSubmitted(csv, filepath.Join(t.TempDir(), "state"), time.Time{})
	if err != nil || added != 0 || len(got) != 1 {
		t.Errorf("no log: %v %d %+v", err, added, got)
	}
}

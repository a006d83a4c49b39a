package pipeline

import (
	"path/filepath"
	"strings"
	"testing"

	"svc/pipeline/pages"
)

// TestSnapshotPublishesPages: a snapshot publishes the pages beside the
// data, listed in its manifest, and two snapshots of the same inputs
// publish them byte for byte (TestSnapshotsByteIdentical compares every
// file; this makes sure the pages are among them). It publishes no page
// per store: svc serve renders those (serve's TestStorePages).
func TestSnapshotPublishesPages(t *testing.T) {
	a, ra := snapshotWorld(t)
	b, _ := snapshotWorld(t)
	ta, tb := treeBytes(t, filepath.Join(a, "public")), treeBytes(t, filepath.Join(b, "public"))
	listed := map[string]bool{}
	for _, f := range ra.Manifest.API {
		listed[f.Path] = true
	}
	var n int
	for p, v := range ta {
		p = filepath.ToSlash(p)
		if strings.HasPrefix(p, pages.StoresDir+"/") {
			t.Errorf("%s published: the server renders the store pages", p)
		}
		if !strings.HasSuffix(p, ".html") {
			continue
		}
		n++
		if tb[p] != v {
			t.Errorf("%s differs between two snapshots of the same inputs", p)
		}
		if !listed[p] {
			t.Errorf("%s is not in the manifest", p)
		}
	}
	for _, p := range []string{pages.HomeFile, pages.DirectoryFile, pages.LeaderboardFile, pages.WeeklyFile, pages.ValidateFile, pages.DatasetsFile} {
		if _, ok := ta[filepath.FromSlash(p)]; !ok {
			t.Errorf("no %s published", p)
		}
	}
	// Home, directory and its categories, leaderboard, weekly, validate,
	// datasets.
	if n < 10 {
		t.Errorf("only %d pages published", n)
	}
}

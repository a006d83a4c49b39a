package publish

// The files Publish writes outside the version folder: their paths, the
// ATTRIBUTION.txt of each folder, the weekly alias and the check against
// what is already published.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// addFiles checks files and adds them to the plan, with an
// ATTRIBUTION.txt in each of their folders (and of dirs) that has none
// yet; it returns the files added.
func (p *plan) addFiles(files []File, dirs ...string) ([]File, error) {
	for _, f := range files {
		if err := checkFilePath(f.Path); err != nil {
			return nil, err
		}
		if p.paths[f.Path] {
			return nil, fmt.Errorf("%w: file %s given twice", ErrInvalid, f.Path)
		}
		p.paths[f.Path] = true
		if strings.HasSuffix(f.Path, ".json") && !json.Valid(f.Data) {
			return nil, fmt.Errorf("%w: file %s: not valid JSON", ErrInvalid, f.Path)
		}
	}
	added := slices.Clone(files)
	for _, f := range files {
		dirs = append(dirs, path.Dir(f.Path))
	}
	for _, d := range dirs {
		added = append(added, p.attribution(d)...)
	}
	p.files = append(p.files, added...)
	slices.SortFunc(p.files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return added, nil
}

// attribution returns the ATTRIBUTION.txt of dir the first time dir is
// seen, unless the snapshot brings its own.
func (p *plan) attribution(dir string) []File {
	if p.dirs[dir] {
		return nil
	}
	p.dirs[dir] = true
	name := path.Join(dir, AttributionFile)
	if p.paths[name] {
		return nil
	}
	p.paths[name] = true
	return []File{{Path: name, Data: []byte(apiAttribution)}}
}

// checkFilePath refuses paths that are not clean or that belong to the
// version folders, latest/ or the store's temporaries.
func checkFilePath(p string) error {
	if !cleanName(p) {
		return fmt.Errorf("%w: file path %q: want a clean relative path without dot segments", ErrInvalid, p)
	}
	if p == WeeklyLatest {
		return fmt.Errorf("%w: file path %s: set Snapshot.Weekly instead", ErrInvalid, p)
	}
	segs := strings.Split(p, "/")
	if segs[0] == "data" && len(segs) > 1 && (strings.HasPrefix(segs[1], "latest") || ValidVersion(segs[1])) {
		return fmt.Errorf("%w: file path %s: inside a version folder or latest/", ErrInvalid, p)
	}
	return nil
}

// addWeeklyAlias adds api/weekly/agent-checkout.json when the edition is
// the newest.
func (p *plan) addWeeklyAlias(ctx context.Context, st Store) error {
	w := p.snap.Weekly
	if w == nil {
		return nil
	}
	names, err := st.List(ctx, WeeklyDir)
	if err != nil {
		return err
	}
	for _, n := range names {
		d, ok := strings.CutSuffix(n, ".json")
		if ok && validDate(d) == nil && d > w.Date {
			return nil // a newer edition stays the current one
		}
	}
	p.files = append(p.files, File{Path: WeeklyLatest, Data: w.Body})
	slices.SortFunc(p.files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return nil
}

// checkExisting compares files to write with what is published: frozen
// files may only be new or identical. It notes the paths that already
// hold the right bytes in p.same.
func (p *plan) checkExisting(ctx context.Context, st Store, files []File) error {
	for _, f := range files {
		old, err := readAll(ctx, st, f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", f.Path, err)
		}
		if bytes.Equal(old, f.Data) {
			p.same[f.Path] = true
		} else if f.Frozen {
			return fmt.Errorf("%w: %s (published sha256 %s, new %s)", ErrFrozen, f.Path, sha256Hex(old), sha256Hex(f.Data))
		}
	}
	return nil
}

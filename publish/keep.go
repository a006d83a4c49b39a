package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
)

// KeepPublishedEdition returns the weekly edition a snapshot publishes for
// ed's post date. An edition is frozen once published, so when one of that
// date is already there with other bytes (a second run on the same day:
// new stores, new submissions, the first run as the previous edition), the
// published edition is returned unchanged, with a note that says so for
// the manifest and the log; the snapshot then publishes everything else as
// usual. Otherwise ed is returned and note is "". The publish gate is not
// relaxed: a frozen file given with other bytes is still refused.
//
// Call it before anything is rendered from the edition (its chart, its
// page), so that they show the edition that stays published.
func KeepPublishedEdition(ctx context.Context, st Store, ed *Edition) (out *Edition, note string, err error) {
	if ed == nil {
		return nil, "", nil
	}
	if err := validDate(ed.Date); err != nil {
		return nil, "", fmt.Errorf("weekly edition: %w", err)
	}
	name := WeeklyDir + "/" + ed.Date + ".json"
	old, err := readAll(ctx, st, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ed, "", nil
	case err != nil:
		return nil, "", fmt.Errorf("read %s: %w", name, err)
	case bytes.Equal(old, ed.Body):
		return ed, "", nil
	}
	note = fmt.Sprintf("The weekly edition of %s (%s, sha256 %s) was published by an earlier snapshot and is frozen: "+
		"it is kept unchanged, so its figure is that earlier snapshot's, not this version's tables' (this run's edition, sha256 %s, was not published).",
		ed.Date, name, sha256Hex(old), sha256Hex(ed.Body))
	return &Edition{Date: ed.Date, Body: old}, note, nil
}

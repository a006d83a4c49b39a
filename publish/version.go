package publish

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// A version names one snapshot folder, data/<version>/. It is the snapshot
// date, YYYY-MM-DD (UTC), optionally followed by ".N" (N = 1..999) for a
// further snapshot on the same date: 2026-05-04 < 2026-05-04.1 <
// 2026-05-04.2 < 2026-05-05. Versions sort by date, then N (no suffix is 0),
// and only ever move forward; a published version never changes.
var versionRE = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?:\.([1-9]\d{0,2}))?$`)

type version struct {
	date time.Time
	n    int
}

func parseVersion(s string) (version, error) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return version{}, fmt.Errorf("version %q: want YYYY-MM-DD or YYYY-MM-DD.N: %w", s, ErrInvalid)
	}
	d, err := time.Parse(time.DateOnly, m[1])
	if err != nil {
		return version{}, fmt.Errorf("version %q: %v: %w", s, err, ErrInvalid)
	}
	v := version{date: d}
	if m[2] != "" {
		v.n, _ = strconv.Atoi(m[2])
	}
	return v, nil
}

// ValidVersion reports whether s is a well-formed version name.
func ValidVersion(s string) bool {
	_, err := parseVersion(s)
	return err == nil
}

// CompareVersions orders two valid version names: -1, 0 or +1. An invalid
// name sorts before every valid one.
func CompareVersions(a, b string) int {
	va, ea := parseVersion(a)
	vb, eb := parseVersion(b)
	switch {
	case ea != nil || eb != nil:
		return cmp.Compare(boolInt(ea == nil), boolInt(eb == nil))
	case !va.date.Equal(vb.date):
		return va.date.Compare(vb.date)
	}
	return cmp.Compare(va.n, vb.n)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// validDate checks a weekly edition date, YYYY-MM-DD.
func validDate(s string) error {
	if _, err := time.Parse(time.DateOnly, s); err != nil || len(s) != len(time.DateOnly) {
		return fmt.Errorf("date %q: want YYYY-MM-DD: %w", s, ErrInvalid)
	}
	return nil
}

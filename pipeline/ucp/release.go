package ucp

import (
	"strings"
)

// TargetRelease is the UCP release whose JSON Schema every profile is checked
// against (spec 9.2).
const TargetRelease = "2026-08-25"

// BusinessEntryPoint is the JSON Schema of a business profile in TargetRelease.
const BusinessEntryPoint = "https://ucp.dev/" + TargetRelease + "/schemas/profile.json#/$defs/business_schema"

// knownReleases are the published UCP releases, oldest first.
var knownReleases = []string{"2026-01-11", "2026-01-23", "2026-04-08", "2026-08-25"}

// validDate reports whether s is YYYY-MM-DD and a real calendar date. The
// schema only checks the digits, so "2026-02-30" passes it but not this.
func validDate(s string) bool {
	if !datePattern(s) {
		return false
	}
	y := atoi(s[0:4])
	m := atoi(s[5:7])
	d := atoi(s[8:10])
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// datePattern is the schema's ^\d{4}-\d{2}-\d{2}$.
func datePattern(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i := 0; i < 10; i++ {
		if i == 4 || i == 7 {
			continue
		}
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// isKnownRelease reports whether v names a published release.
func isKnownRelease(v string) bool {
	for _, r := range knownReleases {
		if r == v {
			return true
		}
	}
	return false
}

// ruleRelease is the release whose rules apply to a profile declaring v (a
// valid date): the nearest release not newer than v, the oldest release for
// older dates. Dates compare as strings.
func ruleRelease(v string) string {
	if v == "" {
		return TargetRelease
	}
	rel := knownReleases[0]
	for _, r := range knownReleases {
		if r <= v {
			rel = r
		}
	}
	return rel
}

// atLeast reports whether release a is b or newer.
func atLeast(a, b string) bool { return strings.Compare(a, b) >= 0 }

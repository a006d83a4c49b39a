package datasets

import (
	"strings"
	"testing"
)

// FuzzCSVString: appendCSVString writes every string as the plain rule
// says: as is, or quoted with its quotes doubled when it is empty, holds a
// comma, quote or line break, or starts or ends with a space; whichever of
// its two copying paths (few quotes or many) it takes.
func FuzzCSVString(f *testing.F) {
	for _, s := range []string{"", "plain", " lead", "trail ", "a,b", `say "hi"`, "two\r\nlines",
		`{"a":"b","c":[1,2,"d"]}`, `""""`, `"`, strings.Repeat(`x"`, 40), strings.Repeat("word ", 30) + `"q"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := s
		if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || strings.ContainsAny(s, ",\"\r\n") {
			want = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
		prefix := []byte("x,")
		if got := string(appendCSVString(prefix, s)); got != "x,"+want {
			t.Fatalf("appendCSVString(%q) = %q, want %q", s, got[2:], want)
		}
	})
}

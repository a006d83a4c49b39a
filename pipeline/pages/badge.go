package pages

import (
	"fmt"
	"html"
	"strings"
	"time"
	"unicode/utf8"
)

// A store's badge (/stores/<host>/badge.svg) is its verdict as a small
// SVG a brand can show on its own site: the left half says what is
// measured, the right half the verdict in the words of the store page, in
// the colour of its mark. Its title names the store and when the check
// behind the verdict ran. The same verdict and time always give the same
// bytes, so its ETag changes only when the verdict or the check does.

// BadgeFile is a badge's file name inside a store's page folder.
const BadgeFile = "badge.svg"

// badgeColours are the fills of the verdict marks.
var badgeColours = map[string]string{"yes": "#1a7f37", "partial": "#9a6700", "no": "#b42318", "unknown": "#57606a"}

// Badge renders the badge of a store's verdict (nil: not measured) from
// the check made at checkedAt (nil: never).
func Badge(host string, verdict *string, checkedAt *time.Time) []byte {
	const label = "AI agent checkout"
	vi := verdictOf(verdict)
	words := vi.Words
	title := "svc: " + host + ": " + words
	if checkedAt != nil && !checkedAt.IsZero() {
		title += ", checked " + checkedAt.UTC().Format(time.DateOnly)
	}
	// About 7 px a character at 11 px Verdana, plus 10 px of padding a
	// side: what shields-style badges use, so the text never overflows.
	lw, rw := textWidth(label)+20, textWidth(words)+20
	w := lw + rw
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s">`, w, html.EscapeString(label+": "+words))
	fmt.Fprintf(&b, `<title>%s</title>`, html.EscapeString(title))
	fmt.Fprintf(&b, `<rect width="%d" height="20" rx="3" fill="#24292f"/>`, w)
	fmt.Fprintf(&b, `<rect x="%d" width="%d" height="20" rx="3" fill="%s"/>`, lw, rw, badgeColours[vi.Class])
	fmt.Fprintf(&b, `<rect x="%d" width="4" height="20" fill="%s"/>`, lw, badgeColours[vi.Class])
	b.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">`)
	fmt.Fprintf(&b, `<text x="%d" y="14">%s</text>`, lw/2, html.EscapeString(label))
	fmt.Fprintf(&b, `<text x="%d" y="14">%s</text>`, lw+rw/2, html.EscapeString(words))
	b.WriteString("</g></svg>\n")
	return []byte(b.String())
}

func textWidth(s string) int { return 7 * utf8.RuneCountInString(s) }

package pages

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"
)

// TestBadge: every verdict gives a well-formed SVG that names it in the
// store page's words and colour, the same bytes each time.
func TestBadge(t *testing.T) {
	at := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	codes := []*string{nil}
	for _, v := range verdicts {
		codes = append(codes, &v.Code)
	}
	for _, code := range codes {
		b := Badge("shop.test", code, &at)
		vi := verdictOf(code)
		dec := xml.NewDecoder(bytes.NewReader(b))
		var texts []string
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%v: not well-formed XML: %v\n%s", vi.Code, err, b)
			}
			if cd, ok := tok.(xml.CharData); ok && strings.TrimSpace(string(cd)) != "" {
				texts = append(texts, string(cd))
			}
		}
		want := []string{"svc: shop.test: " + vi.Words + ", checked 2026-11-20", "AI agent checkout", vi.Words}
		if strings.Join(texts, "|") != strings.Join(want, "|") {
			t.Errorf("%v: texts %q, want %q", vi.Code, texts, want)
		}
		if !bytes.Contains(b, []byte(`fill="`+badgeColours[vi.Class]+`"`)) {
			t.Errorf("%v: not in the colour of %s", vi.Code, vi.Class)
		}
		if !bytes.Equal(b, Badge("shop.test", code, &at)) {
			t.Errorf("%v: two renderings differ", vi.Code)
		}
	}
	if b := Badge("shop.test", nil, nil); !bytes.Contains(b, []byte("Not measured")) || bytes.Contains(b, []byte("checked")) {
		t.Errorf("a store never checked: %s", b)
	}
}

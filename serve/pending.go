package serve

import (
	"bytes"
	"html"
	"strings"
)

// A run that publishes before it has measured everything (svc demo, whose
// browser lane lands minutes after the API answers) says so on the pages
// a visitor reads first: Config.Pending gives the notice for the version
// being served, and while it gives one the home page and the leaderboard
// pages carry it under their heading area and are sent with
// Cache-Control: no-store, so no browser keeps a page whose notice goes
// when the next version lands. Everything else is served as published.

// pendingPage reports whether the published page name carries the notice.
func pendingPage(name string) bool {
	return name == "index.html" || strings.HasPrefix(name, "leaderboard/") && strings.HasSuffix(name, ".html")
}

// pendingFile is the page f with Config.Pending's notice for the version
// being served, or nil when nothing is pending for it (or the page has no
// <main> to put it in).
func (s *Server) pendingFile(name string, f *file) *file {
	if s.cfg.Pending == nil || !pendingPage(name) {
		return nil
	}
	note := s.cfg.Pending(s.current().version)
	if note == "" {
		return nil
	}
	i := bytes.Index(f.body, []byte("<main"))
	if i < 0 {
		return nil
	}
	j := bytes.IndexByte(f.body[i:], '>')
	if j < 0 {
		return nil
	}
	at := i + j + 1
	p := `<p class="note" role="status">` + html.EscapeString(note) + `</p>`
	body := make([]byte, 0, len(f.body)+len(p)+1)
	body = append(append(append(append(body, f.body[:at]...), '\n'), p...), f.body[at:]...)
	return newFile(name, body)
}

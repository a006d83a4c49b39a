package serve

import (
	"net/http"
	"regexp"
	"strings"

	"svc/publish"
)

// precomputed serves one precomputed file of the current snapshot, or 503
// when no snapshot holds it yet.
func (s *Server) precomputed(w http.ResponseWriter, r *http.Request, name, cacheControl string) error {
	f := s.file(name)
	if f == nil {
		return fail(ErrUnavailable, "no published data yet: the first snapshot has not been written")
	}
	return serveFile(w, r, f, cacheControl)
}

func (s *Server) protocols(w http.ResponseWriter, r *http.Request) error {
	return s.precomputed(w, r, publish.ProtocolsPath, cacheFiveMinutes)
}

// adoption repeats asOf in the x-svc-data-as-of header (spec 4.1).
func (s *Server) adoption(w http.ResponseWriter, r *http.Request) error {
	f := s.current().files[publish.AdoptionPath]
	if f == nil {
		return fail(ErrUnavailable, "no published data yet: the first snapshot has not been written")
	}
	if f.asOf != "" {
		w.Header().Set("X-Svc-Data-As-Of", f.asOf) // read when the snapshot was loaded
	}
	return serveFile(w, r, f, cacheFiveMinutes)
}

// leaderboard serves the leaderboard JSON, with its 100-store grid
// (stores=1), or as CSV (format=csv): the board's rows, or with stores=1
// the grid's 100 rows (one table per CSV file). Runs accepted since the
// snapshot are listed (leaderboard.go).
func (s *Server) leaderboard(w http.ResponseWriter, r *http.Request) error {
	p, err := decodeLeaderboard(r.URL.Query())
	if err != nil {
		return err
	}
	return s.precomputed(w, r, p.path(), cacheFiveMinutes)
}

func (s *Server) weeklyLatest(w http.ResponseWriter, r *http.Request) error {
	return s.precomputed(w, r, publish.WeeklyLatest, cacheWeeklyLatest)
}

var editionRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}\.json$`)

// weeklyEdition serves one frozen edition; 404 when none has that date.
func (s *Server) weeklyEdition(w http.ResponseWriter, r *http.Request) error {
	ed := r.PathValue("edition")
	if !editionRE.MatchString(ed) {
		return fail(ErrNotFound, "no edition %q: editions are named YYYY-MM-DD.json after their post date", ed)
	}
	f := s.current().files[publish.WeeklyDir+"/"+ed]
	if f == nil {
		return fail(ErrNotFound, "no weekly edition was posted on %s", ed[:10])
	}
	return serveFile(w, r, f, cacheImmutable)
}

// apiFile serves a GET or HEAD for a published file under public/api/ by
// its own path (/api/protocols.json, /api/agent-checkout/ATTRIBUTION.txt,
// ...), the addresses the manifest gives, with the same headers as the
// endpoint that answers from it. served is false when no such file is
// published, so the caller answers 404 or 405.
func (s *Server) apiFile(w http.ResponseWriter, r *http.Request) (served bool, err error) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false, nil
	}
	name, ok := strings.CutPrefix(r.URL.Path, "/api/")
	if !ok {
		return false, nil
	}
	name = "api/" + name
	f := s.file(name)
	if f == nil {
		return false, nil
	}
	switch {
	case name == publish.AdoptionPath:
		return true, s.adoption(w, r)
	case name == publish.WeeklyLatest:
		return true, s.weeklyLatest(w, r)
	case strings.HasPrefix(name, publish.WeeklyDir+"/") && editionRE.MatchString(strings.TrimPrefix(name, publish.WeeklyDir+"/")):
		return true, serveFile(w, r, f, cacheImmutable)
	}
	return true, serveFile(w, r, f, cacheFiveMinutes)
}

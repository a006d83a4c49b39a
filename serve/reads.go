package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"svc/serve/readlayer"
)

// errSkippedVersion is Reload's answer for a version that failed to load
// before: it is not tried again.
var errSkippedVersion = errors.New("failed to load before; waiting for a newer snapshot")

// readView returns the read layer of the snapshot being served, with a
// reference the caller must release, or a 503 when no snapshot with
// tables has been loaded.
func (s *Server) readView() (readlayer.Source, error) {
	for {
		rl := s.current().read
		if rl == nil {
			return nil, fail(ErrUnavailable, "no published data yet: the first snapshot with store tables has not been loaded")
		}
		if rl.Acquire() {
			return rl, nil
		}
		// Replaced and closing since we loaded the pointer: read the new one.
	}
}

// InDirectory reports whether host has a row in the served snapshot's
// directory (store_answers).
func (s *Server) InDirectory(host string) bool {
	rl, err := s.readView()
	if err != nil {
		return false
	}
	defer rl.Release()
	ok, err := rl.Has(host)
	return err == nil && ok
}

// hostView is the opening every per-host read shares: the served
// snapshot, with a reference the caller releases; the read's quotas taken
// (none for a free read); and host's row, nil when the snapshot has none
// or host is empty. what names the read in errors.
func (s *Server) hostView(caller, host, what string, quotas ...quota) (readlayer.Source, *readlayer.Row, error) {
	rl, err := s.readView()
	if err != nil {
		return nil, nil, err
	}
	if len(quotas) > 0 {
		if err := s.limits.take(caller, 1, quotas...); err != nil {
			rl.Release()
			return nil, nil, err
		}
	}
	if host == "" {
		return rl, nil, nil
	}
	dir, err := rl.Lookup(host)
	if err != nil {
		rl.Release()
		return nil, nil, fmt.Errorf("%s %s: %w", what, host, err)
	}
	return rl, dir, nil
}

// serveRead is the whole of a read's REST handler: the query string
// decoded into the read's params (a 400 when it does not decode), the
// read answered for the caller, and the answer written with its cache
// policy. The read's MCP tool calls the same read with the same params.
func serveRead[P, A any](s *Server, w http.ResponseWriter, r *http.Request,
	decode func(url.Values) (P, error), read func(ctx context.Context, caller string, p P) (A, error), cacheControl string) error {
	p, err := decode(r.URL.Query())
	if err != nil {
		return err
	}
	ans, err := read(r.Context(), s.caller(r), p)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", cacheControl)
	return writeJSON(w, http.StatusOK, ans)
}

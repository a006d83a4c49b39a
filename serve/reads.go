package serve

import (
	"errors"
	"fmt"

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

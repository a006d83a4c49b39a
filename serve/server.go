// Package serve is the read API of svc: it serves the published artifact
// tree, answers filtered reads from DuckDB over the latest snapshot, runs the
// live store check, takes store and leaderboard submissions into the durable
// state log, and hosts the MCP server. Reads never fetch from a store.
package serve

import (
	"log/slog"
	"time"

	"svc/serve/state"
)

// Server holds what the handlers share.
type Server struct {
	log    *slog.Logger
	now    func() time.Time
	state  *state.Log
	limits *limiter
}

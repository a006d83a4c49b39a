// Package inbox is svc's durable, append-only record of what the server
// accepted: live checks, store and leaderboard submissions, checkout
// reports, per-host precheck rows and limit counters. The server appends to
// it and replays it at start; the pipeline reads the submissions from it.
// It sits below both, so neither imports the other to reach it.
//
// Inbox is the interface; File (a folder of JSON-lines segments under
// DATA/state) is the default implementation, Postgres (postgres.go) the one
// serve replicas share, with the state they must agree on (Shared). Every record type the log holds
// is named here (records.go), with the data of the records that more than
// one package reads.
package inbox

import (
	"context"
	"encoding/json"
	"time"
)

// Record is one log entry: its type, the time it was accepted, and its data
// as JSON.
type Record struct {
	Type string          `json:"type"`
	Time time.Time       `json:"time"`
	Data json.RawMessage `json:"data"`
}

// Reader reads the records of an inbox, oldest first. It never writes, so
// the pipeline can read the inbox of a running server.
type Reader interface {
	// Replay calls fn for every complete record. An error from fn stops
	// the replay and is returned as is.
	Replay(ctx context.Context, fn func(Record) error) error
	// Records calls fn for every record of type typ whose time is not
	// after until (zero: no bound).
	Records(ctx context.Context, typ string, until time.Time, fn func(Record) error) error
}

// Inbox is an open inbox the server writes to; safe for concurrent use.
type Inbox interface {
	Reader
	// Append writes one record durably before it returns: only then may
	// the caller answer the request that produced it.
	Append(ctx context.Context, typ string, t time.Time, data any) error
	// Note writes one record without waiting for it to be durable: for
	// counters, where waiting would cost more than the record is worth.
	Note(ctx context.Context, typ string, t time.Time, data any) error
	// Key returns the keyed hash (HMAC with the inbox's secret) that
	// stands for a client address: the raw address is never stored.
	Key(addr string) string
	// Close releases the inbox.
	Close() error
}

// records calls fn for the records of r.Replay of type typ whose time is not
// after until (zero: no bound): Records for an implementation that cannot
// filter where it reads.
func records(ctx context.Context, replay func(context.Context, func(Record) error) error, typ string, until time.Time, fn func(Record) error) error {
	return replay(ctx, func(rec Record) error {
		if rec.Type != typ || (!until.IsZero() && rec.Time.After(until)) {
			return nil
		}
		return fn(rec)
	})
}

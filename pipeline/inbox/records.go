package inbox

import "encoding/json"

// The record types of the inbox. A type's name is stored in every record:
// never rename one.
const (
	// TypeCheck is a live store check (data: check.Result), so a restart
	// keeps the check cache and the live-check history.
	TypeCheck = "check"
	// TypeCheckoutReport is an agent's checkout report (data: the server's
	// checkout report).
	TypeCheckoutReport = "checkout_report"
	// TypePrecheckRow is one row of the daily per-host precheck table.
	TypePrecheckRow = "precheck_row"
	// TypeCount is one use of a daily quota.
	TypeCount = "count"
	// TypeStoreSubmission is the hosts one store submission accepted
	// (POST /api/stores/submit); the next crawl reads them back.
	TypeStoreSubmission = "store_submission"
	// TypeLeaderboardSubmission is an accepted outside leaderboard run
	// (POST /api/leaderboard/submit); the record's time is the submission
	// time. The leaderboard aggregate reads them back.
	TypeLeaderboardSubmission = "leaderboard_submission"
)

// StoreSubmission is the data of a TypeStoreSubmission record. It holds
// nothing about the caller: no address, no key.
type StoreSubmission struct {
	Hosts []SubmittedHost `json:"hosts"`
}

// SubmittedHost is one accepted host and the category it was submitted
// under ("" when none was given).
type SubmittedHost struct {
	Host     string `json:"host"`
	Category string `json:"category,omitempty"`
}

// LeaderboardSubmission is the data of a TypeLeaderboardSubmission record.
// Body is the submission as accepted, private contact included: the inbox
// is never published as is, and the pipeline drops the contact on reading.
type LeaderboardSubmission struct {
	ID     string          `json:"id"`
	Key    string          `json:"key"`
	Status string          `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// PrecheckRow is the data of a TypePrecheckRow record: N prechecks
// answered for a host on a UTC day, nothing about the caller. The rows of
// one host and day add up to its row of the daily per-host table. A record
// without n (written before prechecks were counted per request) counts 1.
type PrecheckRow struct {
	Host string `json:"host"`
	Day  string `json:"day"`
	N    int64  `json:"n,omitempty"`
}

// Count returns the prechecks the record stands for.
func (r PrecheckRow) Count() int64 {
	if r.N <= 0 {
		return 1
	}
	return r.N
}

// Count is the data of a TypeCount record: n uses of a quota by one caller
// on one UTC day.
type Count struct {
	Key   string `json:"key"` // Key of the client network, or "site"
	Quota string `json:"quota"`
	Day   string `json:"day"`
	N     int    `json:"n"`
}

package inbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
)

// Shared is the state serve replicas must agree on, beyond the records:
// an implementation makes each method atomic across every process that
// shares it. The file inbox does not implement it: one process owns a
// folder, and the server keeps this state in memory, rebuilt by replay.
type Shared interface {
	// Take uses n of each quota of uses on day, all or nothing. It returns
	// the index in uses of the first quota that would go over its Max
	// (nothing is used then), or -1 when all were used.
	Take(ctx context.Context, day string, n int, uses []Use) (int, error)
	// TakeUpTo uses as many of n as every quota of uses still allows on
	// day (all by the same amount) and returns that number.
	TakeUpTo(ctx context.Context, day string, n int, uses []Use) (int, error)
	// Used returns how many uses of u were taken on day.
	Used(ctx context.Context, day string, u Use) (int, error)
	// LockHost claims host for one live check across replicas; ok is false
	// when another holds it. unlock releases it; a replica that dies holds
	// its claims until their lease (ClaimLease) runs out.
	LockHost(ctx context.Context, host string) (unlock func(), ok bool, err error)
	// SaveCheck appends a TypeCheck record and makes it the host's newest
	// live check, in one transaction.
	SaveCheck(ctx context.Context, host string, at time.Time, data any) error
	// LatestCheck returns the host's newest saved live check.
	LatestCheck(ctx context.Context, host string) (json.RawMessage, bool, error)
	// AcceptHosts appends one TypeStoreSubmission record of the hosts not
	// accepted before (by any replica) and returns them; none, no record.
	AcceptHosts(ctx context.Context, at time.Time, hosts []SubmittedHost) ([]SubmittedHost, error)
	// Submitted reports whether any of hosts was accepted by a submission.
	Submitted(ctx context.Context, hosts ...string) (bool, error)
	// Run returns the leaderboard run accepted under key, if any.
	Run(ctx context.Context, key string) (LeaderboardSubmission, bool, error)
	// AcceptRun appends the TypeLeaderboardSubmission record of sub unless
	// a run with its Key was accepted before (by any replica): then it
	// appends nothing and returns that run with fresh false.
	AcceptRun(ctx context.Context, at time.Time, sub LeaderboardSubmission) (run LeaderboardSubmission, fresh bool, err error)
	// CountPrechecks adds each count to the row of its host and day in
	// the daily per-host table (one row per host and UTC day, created by
	// the first count), each an atomic increment.
	CountPrechecks(ctx context.Context, counts []PrecheckRow) error
	// PrecheckStats returns the prechecks counted in the per-host table,
	// those of today, and the first day with a row ("" when none).
	PrecheckStats(ctx context.Context, today string) (served, todays int64, first string, err error)
	// Follow calls fn for every record of the inbox not yet passed to fn
	// by this value, oldest first: the first call replays them all, later
	// ones those committed since (by any replica), each once. A record
	// committed out of id order is still passed when it commits within
	// FollowGap of a newer one being seen.
	Follow(ctx context.Context, fn func(Record) error) error
}

// Use is one quota a take counts against: Key is the caller's key (an
// HMAC, or "site"), Max the quota's daily limit.
type Use struct {
	Key   string
	Quota string
	Max   int
}

const takeSQL = `INSERT INTO quota_counts AS c (key, quota, day, n)
	SELECT $1, $2, $3::date, $4::integer WHERE $4::integer <= $5::integer
	ON CONFLICT (key, quota, day) DO UPDATE SET n = c.n + EXCLUDED.n WHERE c.n + EXCLUDED.n <= $5::integer
	RETURNING n`

// Take runs one statement per quota, in one transaction when there are
// several: the conditional upsert adds n only when the sum stays within Max,
// under the row's lock, so two replicas never both take the last use.
func (p *Postgres) Take(ctx context.Context, day string, n int, uses []Use) (int, error) {
	if len(uses) == 1 {
		return p.takeOne(ctx, p.pool, day, n, uses[0], 0)
	}
	hit := -1
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		for i, u := range uses {
			h, err := p.takeOne(ctx, tx, day, n, u, i)
			if err != nil {
				return err
			}
			if h >= 0 {
				hit = h
				return errNoRow // rolls back the quotas taken before
			}
		}
		return nil
	})
	if errors.Is(err, errNoRow) {
		return hit, nil
	}
	if err != nil {
		return -1, fmt.Errorf("take quota: %w", err)
	}
	return -1, nil
}

type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func (p *Postgres) takeOne(ctx context.Context, q querier, day string, n int, u Use, i int) (int, error) {
	var got int
	err := q.QueryRow(ctx, takeSQL, u.Key, u.Quota, day, n, u.Max).Scan(&got)
	if errors.Is(err, pgx.ErrNoRows) {
		return i, nil
	}
	if err != nil {
		return -1, fmt.Errorf("take quota %s: %w", u.Quota, err)
	}
	return -1, nil
}

// TakeUpTo locks each quota's row (in the order given), takes the smallest
// room left, and adds it to every one, in one transaction.
func (p *Postgres) TakeUpTo(ctx context.Context, day string, n int, uses []Use) (int, error) {
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		for _, u := range uses {
			var used int
			err := tx.QueryRow(ctx, `INSERT INTO quota_counts AS c (key, quota, day, n) VALUES ($1, $2, $3::date, 0)
				ON CONFLICT (key, quota, day) DO UPDATE SET n = c.n RETURNING n`, u.Key, u.Quota, day).Scan(&used)
			if err != nil {
				return err
			}
			n = min(n, max(u.Max-used, 0))
		}
		if n <= 0 {
			return nil
		}
		for _, u := range uses {
			if _, err := tx.Exec(ctx, "UPDATE quota_counts SET n = n + $4 WHERE key = $1 AND quota = $2 AND day = $3::date",
				u.Key, u.Quota, day, n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("take quota: %w", err)
	}
	return max(n, 0), nil
}

// Used returns the uses of u taken on day.
func (p *Postgres) Used(ctx context.Context, day string, u Use) (int, error) {
	var n int
	err := p.pool.QueryRow(ctx, "SELECT n FROM quota_counts WHERE key = $1 AND quota = $2 AND day = $3::date", u.Key, u.Quota, day).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read quota: %w", err)
	}
	return n, nil
}

// ClaimLease is how long a claim of LockHost holds a host whose replica
// died before releasing it: longer than a live check may run.
const ClaimLease = 3 * time.Minute

// LockHost claims host with one conditional upsert: a row of the host whose
// lease has not run out belongs to another request. The claim holds no
// connection while the check runs (a pool of a few connections would
// otherwise run dry under concurrent checks that need one to save), and
// unlock deletes only this claim.
func (p *Postgres) LockHost(ctx context.Context, host string) (func(), bool, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, false, err
	}
	token := hex.EncodeToString(b)
	tag, err := p.pool.Exec(ctx, `INSERT INTO check_claims AS c (host, token, until) VALUES ($1, $2, now() + $3::interval)
		ON CONFLICT (host) DO UPDATE SET token = EXCLUDED.token, until = EXCLUDED.until WHERE c.until < now()`,
		host, token, ClaimLease.String())
	if err != nil {
		return nil, false, fmt.Errorf("claim host: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return nil, false, nil
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = p.pool.Exec(ctx, "DELETE FROM check_claims WHERE host = $1 AND token = $2", host, token) // else the lease runs out
	}, true, nil
}

// SaveCheck appends the check and makes it the host's newest, unless a
// newer one is there, in one transaction.
func (p *Postgres) SaveCheck(ctx context.Context, host string, at time.Time, data any) error {
	raw, err := recordJSON(TypeCheck, data)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO records (type, at, data) VALUES ($1, $2, $3)", TypeCheck, at.UTC(), string(raw)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO live_checks AS l (host, at, data) VALUES ($1, $2, $3)
			ON CONFLICT (host) DO UPDATE SET at = EXCLUDED.at, data = EXCLUDED.data WHERE l.at <= EXCLUDED.at`, host, at.UTC(), string(raw))
		return err
	})
	if err != nil {
		return fmt.Errorf("save check: %w", err)
	}
	return nil
}

// LatestCheck returns the host's newest saved live check.
func (p *Postgres) LatestCheck(ctx context.Context, host string) (json.RawMessage, bool, error) {
	var data string
	err := p.pool.QueryRow(ctx, "SELECT data::text FROM live_checks WHERE host = $1", host).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read check: %w", err)
	}
	return json.RawMessage(data), true, nil
}

// AcceptHosts inserts the hosts into submitted_hosts (a host there already
// is skipped) and appends the record of those inserted, in one transaction.
func (p *Postgres) AcceptHosts(ctx context.Context, at time.Time, hosts []SubmittedHost) ([]SubmittedHost, error) {
	var fresh []SubmittedHost
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		fresh = fresh[:0]
		for _, h := range hosts {
			tag, err := tx.Exec(ctx, "INSERT INTO submitted_hosts (host, category, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
				h.Host, h.Category, at.UTC())
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 1 {
				fresh = append(fresh, h)
			}
		}
		if len(fresh) == 0 {
			return nil
		}
		raw, err := recordJSON(TypeStoreSubmission, StoreSubmission{Hosts: fresh})
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "INSERT INTO records (type, at, data) VALUES ($1, $2, $3)", TypeStoreSubmission, at.UTC(), string(raw))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("accept hosts: %w", err)
	}
	return fresh, nil
}

// Submitted reports whether any of hosts was accepted by a submission.
func (p *Postgres) Submitted(ctx context.Context, hosts ...string) (bool, error) {
	var ok bool
	if err := p.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM submitted_hosts WHERE host = ANY($1))", hosts).Scan(&ok); err != nil {
		return false, fmt.Errorf("read submitted hosts: %w", err)
	}
	return ok, nil
}

// CountPrechecks adds the counts in one statement: counts of one host and
// day are summed first (an upsert may touch a row once), and the rows are
// taken in key order, so two replicas' batches never deadlock.
func (p *Postgres) CountPrechecks(ctx context.Context, counts []PrecheckRow) error {
	type key struct{ day, host string }
	sum := map[key]int64{}
	for _, c := range counts {
		if c.Host != "" && c.Day != "" {
			sum[key{c.Day, c.Host}] += c.Count()
		}
	}
	if len(sum) == 0 {
		return nil
	}
	keys := make([]key, 0, len(sum))
	for k := range sum {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].day != keys[j].day {
			return keys[i].day < keys[j].day
		}
		return keys[i].host < keys[j].host
	})
	hosts, days, ns := make([]string, len(keys)), make([]string, len(keys)), make([]int64, len(keys))
	for i, k := range keys {
		hosts[i], days[i], ns[i] = k.host, k.day, sum[k]
	}
	_, err := p.pool.Exec(ctx, `INSERT INTO precheck_rows AS r (host, day, n)
		SELECT host, day, n FROM unnest($1::text[], $2::date[], $3::bigint[]) AS u(host, day, n) ORDER BY day, host
		ON CONFLICT (day, host) DO UPDATE SET n = r.n + EXCLUDED.n`, hosts, days, ns)
	if err != nil {
		return fmt.Errorf("count prechecks: %w", err)
	}
	return nil
}

// PrecheckStats sums the per-host table.
func (p *Postgres) PrecheckStats(ctx context.Context, today string) (int64, int64, string, error) {
	var rows, todays int64
	var first *string
	err := p.pool.QueryRow(ctx, `SELECT coalesce(sum(n), 0)::bigint, coalesce(sum(n) FILTER (WHERE day = $1::date), 0)::bigint, min(day)::text
		FROM precheck_rows`, today).
		Scan(&rows, &todays, &first)
	if err != nil {
		return 0, 0, "", fmt.Errorf("precheck stats: %w", err)
	}
	if first == nil {
		return rows, todays, "", nil
	}
	return rows, todays, *first, nil
}

// Run returns the run accepted under key (ID, Key and Status; no body).
func (p *Postgres) Run(ctx context.Context, key string) (LeaderboardSubmission, bool, error) {
	run := LeaderboardSubmission{Key: key}
	err := p.pool.QueryRow(ctx, "SELECT id, status FROM leaderboard_runs WHERE key = $1", key).Scan(&run.ID, &run.Status)
	if errors.Is(err, pgx.ErrNoRows) {
		return LeaderboardSubmission{}, false, nil
	}
	if err != nil {
		return LeaderboardSubmission{}, false, fmt.Errorf("read leaderboard run: %w", err)
	}
	return run, true, nil
}

// AcceptRun inserts the run's key and appends its record in one
// transaction; a key there already returns the run stored under it.
func (p *Postgres) AcceptRun(ctx context.Context, at time.Time, sub LeaderboardSubmission) (LeaderboardSubmission, bool, error) {
	raw, err := recordJSON(TypeLeaderboardSubmission, sub)
	if err != nil {
		return LeaderboardSubmission{}, false, err
	}
	run, fresh := sub, true
	err = pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "INSERT INTO leaderboard_runs (key, id, status) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", sub.Key, sub.ID, sub.Status)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			fresh, run = false, LeaderboardSubmission{Key: sub.Key}
			return tx.QueryRow(ctx, "SELECT id, status FROM leaderboard_runs WHERE key = $1", sub.Key).Scan(&run.ID, &run.Status)
		}
		_, err = tx.Exec(ctx, "INSERT INTO records (type, at, data) VALUES ($1, $2, $3)", TypeLeaderboardSubmission, at.UTC(), string(raw))
		return err
	})
	if err != nil {
		return LeaderboardSubmission{}, false, fmt.Errorf("accept leaderboard run: %w", err)
	}
	return run, fresh, nil
}

package inbox

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"svc/pipeline/inbox/pgtest"
)

func openPG(t *testing.T, url string) *Postgres {
	t.Helper()
	p, err := OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestPostgresRecordsAndSecret(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	a, b := openPG(t, url), openPG(t, url) // two replicas, migrated twice
	if a.Key("192.0.2.1") != b.Key("192.0.2.1") {
		t.Fatal("two opens of one database key an address differently: the secret is not shared")
	}
	if a.Key("192.0.2.1") == a.Key("192.0.2.2") || len(a.Key("x")) != 32 {
		t.Fatalf("keys: %q %q", a.Key("192.0.2.1"), a.Key("192.0.2.2"))
	}
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	if err := a.Append(ctx, TypeStoreSubmission, t0, StoreSubmission{Hosts: []SubmittedHost{{Host: "a.example"}}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Note(ctx, TypeCount, t0.Add(time.Hour), Count{Key: "k", Quota: "q", Day: "2026-05-01", N: 1}); err != nil {
		t.Fatal(err)
	}
	if err := b.Append(ctx, TypeStoreSubmission, t0.Add(2*time.Hour), StoreSubmission{Hosts: []SubmittedHost{{Host: "b.example"}}}); err != nil {
		t.Fatal(err)
	}
	var all []string
	if err := a.Replay(ctx, func(r Record) error { all = append(all, r.Type+" "+r.Time.Format(time.RFC3339)); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{"store_submission 2026-05-01T10:00:00Z", "count 2026-05-01T11:00:00Z", "store_submission 2026-05-01T12:00:00Z"}
	if fmt.Sprint(all) != fmt.Sprint(want) {
		t.Fatalf("replay: %v, want %v", all, want)
	}
	var hosts []string
	err := b.Records(ctx, TypeStoreSubmission, t0.Add(time.Hour), func(r Record) error {
		var s StoreSubmission
		if err := json.Unmarshal(r.Data, &s); err != nil {
			return err
		}
		hosts = append(hosts, s.Hosts[0].Host)
		return nil
	})
	if err != nil || fmt.Sprint(hosts) != "[a.example]" {
		t.Fatalf("records until t0+1h: %v %v", hosts, err)
	}
}

func TestPostgresMigrationsVersioned(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	openPG(t, url)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	var n, top int
	if err := conn.QueryRow(ctx, "SELECT count(*), max(version) FROM schema_migrations").Scan(&n, &top); err != nil {
		t.Fatal(err)
	}
	if n != len(ms) || top != ms[len(ms)-1].version {
		t.Fatalf("schema_migrations: %d rows up to %d, want %d up to %d", n, top, len(ms), ms[len(ms)-1].version)
	}
	// A database an older svc migrated (version 1) is brought up to date.
	// Its precheck row, counted once then, counts 1 after.
	if _, err := conn.Exec(ctx, `DROP TABLE leaderboard_runs, check_claims, agent_key; ALTER TABLE precheck_rows DROP COLUMN n;
		DELETE FROM schema_migrations WHERE version >= 2; INSERT INTO precheck_rows (host, day) VALUES ('old.example', '2026-01-02')`); err != nil {
		t.Fatal(err)
	}
	openPG(t, url)
	if err := conn.QueryRow(ctx, "SELECT count(*), max(version) FROM schema_migrations").Scan(&n, &top); err != nil || n != len(ms) {
		t.Fatalf("after upgrading from version 1: %d rows %v", n, err)
	}
	if _, err := conn.Exec(ctx, "SELECT key FROM leaderboard_runs"); err != nil {
		t.Fatalf("migration 2 not applied on upgrade: %v", err)
	}
	var old int64
	if err := conn.QueryRow(ctx, "SELECT n FROM precheck_rows WHERE host = 'old.example'").Scan(&old); err != nil || old != 1 {
		t.Fatalf("a precheck row from before per-request counts: n %d %v, want 1", old, err)
	}
	// A database a newer svc migrated is refused, not written to.
	if _, err := conn.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES (9999, 'future.sql')"); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPostgres(ctx, url); err == nil {
		t.Fatal("opened a database at a newer schema version")
	}
}

func TestPostgresTakeAtomicAcrossReplicas(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	reps := []*Postgres{openPG(t, url), openPG(t, url)}
	const limit = 25
	var ok atomic.Int64
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hit, err := reps[i%2].Take(ctx, "2026-05-01", 1, []Use{{Key: "net", Quota: "q", Max: limit}, {Key: "site", Quota: "q_site", Max: 1000}})
			if err != nil {
				t.Error(err)
				return
			}
			if hit < 0 {
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != limit {
		t.Fatalf("%d takes succeeded across two replicas, want exactly %d", ok.Load(), limit)
	}
	// All or nothing: the failed takes left the site quota untouched.
	if n, _ := reps[0].Used(ctx, "2026-05-01", Use{Key: "site", Quota: "q_site"}); n != limit {
		t.Fatalf("site quota used %d, want %d", n, limit)
	}
	// The second quota hit: index 1, and the first is not charged.
	hit, err := reps[1].Take(ctx, "2026-05-01", 1, []Use{{Key: "other", Quota: "q", Max: 5}, {Key: "site", Quota: "q_site", Max: limit}})
	if err != nil || hit != 1 {
		t.Fatalf("take over the site quota: hit %d %v, want 1", hit, err)
	}
	if n, _ := reps[1].Used(ctx, "2026-05-01", Use{Key: "other", Quota: "q"}); n != 0 {
		t.Fatalf("a refused take charged the first quota: %d", n)
	}
	// TakeUpTo grants what is left, across replicas, never more.
	var got atomic.Int64
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := reps[i%2].TakeUpTo(ctx, "2026-05-02", 7, []Use{{Key: "net", Quota: "hosts", Max: 30}, {Key: "site", Quota: "hosts_site", Max: 50}})
			if err != nil {
				t.Error(err)
			}
			got.Add(int64(n))
		}()
	}
	wg.Wait()
	if got.Load() != 30 {
		t.Fatalf("TakeUpTo granted %d in all, want 30", got.Load())
	}
}

func TestPostgresLockAcceptPrecheck(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	a, b := openPG(t, url), openPG(t, url)
	unlock, ok, err := a.LockHost(ctx, "shop.example")
	if err != nil || !ok {
		t.Fatalf("first lock: %v %v", ok, err)
	}
	if _, ok, err := b.LockHost(ctx, "shop.example"); err != nil || ok {
		t.Fatalf("second replica locked a host being checked: %v %v", ok, err)
	}
	if u, ok, err := b.LockHost(ctx, "other.example"); err != nil || !ok {
		t.Fatalf("another host: %v %v", ok, err)
	} else {
		u()
	}
	unlock()
	if u, ok, err := b.LockHost(ctx, "shop.example"); err != nil || !ok {
		t.Fatalf("lock after unlock: %v %v", ok, err)
	} else {
		u()
	}

	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	if err := a.SaveCheck(ctx, "shop.example", at, map[string]string{"host": "shop.example", "v": "new"}); err != nil {
		t.Fatal(err)
	}
	if err := a.SaveCheck(ctx, "shop.example", at.Add(-time.Hour), map[string]string{"host": "shop.example", "v": "old"}); err != nil {
		t.Fatal(err)
	}
	raw, ok, err := b.LatestCheck(ctx, "shop.example")
	if err != nil || !ok || string(raw) != `{"host":"shop.example","v":"new"}` {
		t.Fatalf("latest check: %s %v %v", raw, ok, err)
	}

	fresh, err := a.AcceptHosts(ctx, at, []SubmittedHost{{Host: "a.example"}, {Host: "b.example", Category: "books"}})
	if err != nil || len(fresh) != 2 {
		t.Fatalf("accept: %v %v", fresh, err)
	}
	fresh, err = b.AcceptHosts(ctx, at, []SubmittedHost{{Host: "b.example"}, {Host: "c.example"}})
	if err != nil || fmt.Sprint(fresh) != "[{c.example }]" {
		t.Fatalf("second replica accepted %v %v, want only c.example", fresh, err)
	}
	if ok, err := b.Submitted(ctx, "zzz.example", "a.example"); err != nil || !ok {
		t.Fatalf("submitted: %v %v", ok, err)
	}
	var recs int
	if err := a.Records(ctx, TypeStoreSubmission, time.Time{}, func(Record) error { recs++; return nil }); err != nil || recs != 2 {
		t.Fatalf("submission records: %d %v, want 2", recs, err)
	}

	// Prechecks counted per request, one row per host and UTC day, from
	// either replica, a batch at a time (a host twice in one batch too).
	counts := []struct {
		p     *Postgres
		batch []PrecheckRow
	}{
		{a, []PrecheckRow{{Host: "x.example", Day: "2026-05-01", N: 2}, {Host: "x.example", Day: "2026-05-01"}}},
		{b, []PrecheckRow{{Host: "x.example", Day: "2026-05-01", N: 4}, {Host: "y.example", Day: "2026-05-01", N: 1}}},
		{a, []PrecheckRow{{Host: "x.example", Day: "2026-05-02", N: 5}}},
		{b, nil},
	}
	for _, c := range counts {
		if err := c.p.CountPrechecks(ctx, c.batch); err != nil {
			t.Fatal(err)
		}
	}
	served, today, first, err := b.PrecheckStats(ctx, "2026-05-02")
	if err != nil || served != 13 || today != 5 || first != "2026-05-01" {
		t.Fatalf("stats: %d %d %q %v, want 13 prechecks, 5 today, since 2026-05-01", served, today, first, err)
	}
	var rows int
	if err := a.pool.QueryRow(ctx, "SELECT count(*) FROM precheck_rows").Scan(&rows); err != nil || rows != 3 {
		t.Fatalf("precheck rows: %d %v, want one per host and day (3)", rows, err)
	}
}

// Prechecks counted at once by many replicas all land: each batch is an
// atomic increment of its rows, and batches over the same rows in any
// order neither lose a count nor deadlock.
func TestPostgresCountPrechecksConcurrent(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	reps := []*Postgres{openPG(t, url), openPG(t, url), openPG(t, url)}
	hosts := []string{"a.example", "b.example", "c.example", "d.example"}
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var batch []PrecheckRow
			for j := range hosts { // a different order each time
				batch = append(batch, PrecheckRow{Host: hosts[(i+j)%len(hosts)], Day: "2026-05-01", N: 1})
			}
			errs <- reps[i%len(reps)].CountPrechecks(ctx, batch)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	served, _, _, err := reps[0].PrecheckStats(ctx, "2026-05-01")
	if err != nil || served != 60*int64(len(hosts)) {
		t.Fatalf("served %d %v, want %d", served, err, 60*len(hosts))
	}
}

// Follow replays every record once, then passes only what was committed
// since, by any replica, and a record whose transaction took a lower id
// but committed after a higher one was seen.
func TestPostgresFollow(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	a, b := openPG(t, url), openPG(t, url)
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	sub := func(host string) StoreSubmission { return StoreSubmission{Hosts: []SubmittedHost{{Host: host}}} }
	if err := a.Append(ctx, TypeStoreSubmission, t0, sub("one.example")); err != nil {
		t.Fatal(err)
	}
	var seen []string
	follow := func() {
		t.Helper()
		if err := b.Follow(ctx, func(r Record) error {
			var s StoreSubmission
			if err := json.Unmarshal(r.Data, &s); err != nil {
				return err
			}
			seen = append(seen, s.Hosts[0].Host)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	follow()
	follow() // nothing new
	if fmt.Sprint(seen) != "[one.example]" {
		t.Fatalf("first follow: %v", seen)
	}
	// A transaction takes the next id and holds it uncommitted while
	// another replica's record, with a higher id, commits.
	tx, err := a.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // committed below
	raw, _ := json.Marshal(sub("slow.example"))
	if _, err := tx.Exec(ctx, "INSERT INTO records (type, at, data) VALUES ($1, $2, $3)", TypeStoreSubmission, t0, string(raw)); err != nil {
		t.Fatal(err)
	}
	if err := a.Append(ctx, TypeStoreSubmission, t0, sub("fast.example")); err != nil {
		t.Fatal(err)
	}
	follow()
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	follow()
	follow()
	if want := "[one.example fast.example slow.example]"; fmt.Sprint(seen) != want {
		t.Fatalf("followed %v, want %s (each once)", seen, want)
	}
	// More than a page: every record, in order.
	for i := range followPage + 3 {
		if err := a.Append(ctx, TypeStoreSubmission, t0, sub(fmt.Sprintf("p%d.example", i))); err != nil {
			t.Fatal(err)
		}
	}
	seen = nil
	follow()
	if len(seen) != followPage+3 || seen[0] != "p0.example" || seen[len(seen)-1] != fmt.Sprintf("p%d.example", followPage+2) {
		t.Fatalf("followed %d records (%v … %v), want %d in order", len(seen), seen[0], seen[len(seen)-1], followPage+3)
	}
}

func TestOpenReaderPostgresAndFolder(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	w := openPG(t, url)
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	if _, err := w.AcceptHosts(ctx, at, []SubmittedHost{{Host: "a.example", Category: "books"}}); err != nil {
		t.Fatal(err)
	}
	r, closeR, err := OpenReader(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer closeR()
	var got []string
	if err := r.Records(ctx, TypeStoreSubmission, time.Time{}, func(rec Record) error {
		got = append(got, string(rec.Data))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != `[{"hosts":[{"host":"a.example","category":"books"}]}]` {
		t.Fatalf("records read by the pipeline: %v", got)
	}
	if r, _, err := OpenReader(ctx, t.TempDir()); err != nil || r.(DirReader) == "" {
		t.Fatalf("a folder: %v %v", r, err)
	}
}

// Claims hold no connection: more concurrent checks than the pool has
// connections can each save their result while holding their host (with a
// claim on a held connection, the fifth one waited for a connection forever).
func TestPostgresClaimsHoldNoConnection(t *testing.T) {
	url := pgtest.URL(t)
	p := openPG(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	n := int(p.pool.Config().MaxConns) * 3
	var unlocks []func()
	for i := range n {
		u, ok, err := p.LockHost(ctx, fmt.Sprintf("h%d.example", i))
		if err != nil || !ok {
			t.Fatalf("claim %d of %d: %v %v", i+1, n, ok, err)
		}
		unlocks = append(unlocks, u)
	}
	for i := range n {
		if err := p.SaveCheck(ctx, fmt.Sprintf("h%d.example", i), time.Now(), map[string]int{"i": i}); err != nil {
			t.Fatalf("save while %d claims are held: %v", n, err)
		}
	}
	for _, u := range unlocks {
		u()
	}
	// A claim whose replica died is taken over once its lease ran out.
	if _, err := p.pool.Exec(ctx, "INSERT INTO check_claims (host, token, until) VALUES ('dead.example', 'x', now() - interval '1 second')"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := p.LockHost(ctx, "dead.example"); err != nil || !ok {
		t.Fatalf("expired claim: %v %v", ok, err)
	}
}

package serve

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"svc/datasets/duck"
	"svc/serve/readlayer"
)

// TestRowCacheMatchesDuckDB reads the product data and agent facts of
// every host of two snapshots (the fixture world's crawl, and a synthetic
// one of 3,000 stores, whose facts cross many cache blocks) three ways:
// through the row caches built at load, through the Parquet pages (the
// read layer without caches, as before them), and with DuckDB over the
// published views, a reader that shares no code with the other two. All
// three agree, for every host and for one the snapshot lacks.
func TestRowCacheMatchesDuckDB(t *testing.T) {
	f := sharedReadFixture(t)
	fixture := t.TempDir()
	f.writeTreeTo(t, fixture)
	synth := t.TempDir()
	if err := writeSynthSnapshot(synth, "2026-11-16", 3000, time.Date(2026, 11, 16, 12, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, dir, version string }{
		{"fixture", fixture, f.version}, {"synthetic", synth, "2026-11-16"},
	} {
		t.Run(c.name, func(t *testing.T) {
			compareRowCache(t, filepath.Join(c.dir, "public", "data", c.version), c.version)
		})
	}
}

func compareRowCache(t *testing.T, dir, version string) {
	ctx := context.Background()
	cached, err := readlayer.OpenWith(ctx, dir, version, readlayer.Options{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer cached.Release()
	if err := cached.RowCacheErr(); err != nil || cached.RowCacheBytes() == 0 {
		t.Fatalf("row caches: %v, %d bytes", err, cached.RowCacheBytes())
	}
	pages, err := readlayer.OpenWith(ctx, dir, version, readlayer.Options{NoRowCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pages.Release()
	if pages.RowCacheBytes() != 0 {
		t.Fatal("NoRowCache built a cache")
	}
	// A cache that cannot be written (its folder is missing) leaves the
	// snapshot served from the pages, with the reason kept for the log.
	fallback, err := readlayer.OpenWith(ctx, dir, version, readlayer.Options{TempDir: filepath.Join(t.TempDir(), "missing")})
	if err != nil {
		t.Fatal(err)
	}
	defer fallback.Release()
	if fallback.RowCacheErr() == nil || fallback.RowCacheBytes() != 0 {
		t.Fatalf("no scratch folder: error %v, %d bytes", fallback.RowCacheErr(), fallback.RowCacheBytes())
	}
	db, err := duck.OpenDatasets(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	products, facts := duckProducts(t, db), duckFacts(t, db)
	hosts := query(t, db, "SELECT host FROM store_answers ORDER BY host", func(r *sql.Rows) (string, error) {
		var h string
		return h, r.Scan(&h)
	})
	if len(hosts) < 50 || len(products) == 0 || len(facts) == 0 {
		t.Fatalf("%d hosts, %d with product data, %d with facts", len(hosts), len(products), len(facts))
	}
	withProduct, withFacts := 0, 0
	for _, host := range append(hosts, "nowhere.test") {
		rc, err := cached.Lookup(host)
		if err != nil {
			t.Fatal(err)
		}
		rp, err := pages.Lookup(host)
		if err != nil {
			t.Fatal(err)
		}
		if (rc == nil) != (rp == nil) || (rc == nil) != (host == "nowhere.test") {
			t.Fatalf("%s: lookup %v, without caches %v", host, rc != nil, rp != nil)
		}
		if rc == nil {
			continue
		}
		pc, err := cached.Product(rc)
		if err != nil {
			t.Fatal(err)
		}
		pp, err := pages.Product(rp)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(pp, pc); d != "" {
			t.Fatalf("%s: product data (-pages +cache):\n%s", host, d)
		}
		if rf, _ := fallback.Lookup(host); rf == nil {
			t.Fatalf("%s: not found without caches", host)
		} else if pf, err := fallback.Product(rf); err != nil || cmp.Diff(pp, pf) != "" {
			t.Fatalf("%s: product data with a failed cache: %v %s", host, err, cmp.Diff(pp, pf))
		} else if ff, err := fallback.HostFacts(rf); err != nil || cmp.Diff(fc0(pages, rp), ff) != "" {
			t.Fatalf("%s: facts with a failed cache: %v", host, err)
		}
		if d := cmp.Diff(products[host], pc); d != "" {
			t.Fatalf("%s: product data (-duckdb +cache):\n%s", host, d)
		}
		fc, err := cached.HostFacts(rc)
		if err != nil {
			t.Fatal(err)
		}
		fp, err := pages.HostFacts(rp)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(fp, fc); d != "" {
			t.Fatalf("%s: facts (-pages +cache):\n%s", host, d)
		}
		if d := cmp.Diff(facts[host], fc); d != "" {
			t.Fatalf("%s: facts (-duckdb +cache):\n%s", host, d)
		}
		if pc != nil {
			withProduct++
		}
		if len(fc) > 0 {
			withFacts++
		}
	}
	if withProduct != len(products) || withFacts != len(facts) {
		t.Errorf("%d hosts with product data, %d with facts; DuckDB has %d and %d", withProduct, withFacts, len(products), len(facts))
	}
}

// fc0 is host's facts read from the pages.
func fc0(pages *readlayer.Layer, r *readlayer.Row) []readlayer.Fact {
	f, _ := pages.HostFacts(r)
	return f
}

func query[T any](t *testing.T, db *sql.DB, q string, scan func(*sql.Rows) (T, error)) []T {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func utc(p *time.Time) *time.Time {
	if p == nil {
		return nil
	}
	u := p.UTC()
	return &u
}

func duckProducts(t *testing.T, db *sql.DB) map[string]*readlayer.Product {
	type hp struct {
		host string
		p    *readlayer.Product
	}
	out := map[string]*readlayer.Product{}
	for _, r := range query(t, db, "SELECT host, product_url, source, product_data, vendor_readiness, checked_at FROM product_data",
		func(r *sql.Rows) (hp, error) {
			var v hp
			v.p = &readlayer.Product{}
			err := r.Scan(&v.host, &v.p.ProductURL, &v.p.Source, &v.p.ProductData, &v.p.VendorReadiness, &v.p.CheckedAt)
			v.p.CheckedAt = utc(v.p.CheckedAt)
			return v, err
		}) {
		out[r.host] = r.p
	}
	return out
}

func duckFacts(t *testing.T, db *sql.DB) map[string][]readlayer.Fact {
	out := map[string][]readlayer.Fact{}
	for _, f := range query(t, db, "SELECT host, fact, value, confidence, evidence_sha256, evidence, source_url, checked_at, note FROM agent_facts ORDER BY host, fact",
		func(r *sql.Rows) (readlayer.Fact, error) {
			var f readlayer.Fact
			err := r.Scan(&f.Host, &f.Fact, &f.Value, &f.Confidence, &f.EvidenceSha256, &f.Evidence, &f.SourceURL, &f.CheckedAt, &f.Note)
			f.CheckedAt = utc(f.CheckedAt)
			return f, err
		}) {
		out[f.Host] = append(out[f.Host], f)
	}
	return out
}

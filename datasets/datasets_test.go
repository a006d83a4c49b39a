package datasets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// allTypes has every column type, nullable and not, and a two-column key.
var allTypes = &Table{
	Name:        "all_types",
	Description: "Test table with every column type.",
	Key:         []string{"k", "n"},
	Columns: []Column{
		req("k", String, "key part 1"),
		req("n", Int64, "key part 2"),
		opt("s", String, "nullable string"),
		req("rs", String, "required string"),
		opt("b", Bool, "nullable bool"),
		req("rb", Bool, "required bool"),
		opt("i", Int64, "nullable int"),
		opt("f", Float64, "nullable float"),
		req("rf", Float64, "required float"),
		opt("ts", Timestamp, "nullable timestamp"),
		req("rts", Timestamp, "required timestamp"),
		opt("d", Date, "nullable date"),
		opt("j", JSON, "nullable json"),
	},
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// edgeRows returns rows full of edge cases, in key order.
func edgeRows() []Row {
	t0 := ts("2026-05-04T10:11:12.123456Z")
	return []Row{
		{"", int64(-5), "", "", false, false, int64(0), 0.0, 0.0, t0, t0, day("1969-12-31"), `{}`},
		{"a", int64(1), nil, "x", nil, true, nil, nil, -1.5, nil, ts("1960-01-01T00:00:00.000001Z"), nil, nil},
		{"a", int64(2), "comma, \"quote\"\r\nnewline", " lead space", true, false, int64(math.MinInt64), 1e-7, 1e21, ts("2000-02-29T23:59:59.999999Z"), t0, day("2026-02-28"), `[1,"a,b",{"x":null}]`},
		{"b", int64(0), "naïve 日本 \u2028", "tail space ", false, true, int64(math.MaxInt64), 0.1, 123456789.125, t0, t0, day("0001-01-01"), `"str"`},
		{"b\nc", int64(7), "\r", "\n", true, true, int64(-1), -0.000001, 5e-324, t0, t0, day("9999-12-31"), `null`},
	}
}

func clone(rows []Row) []Row {
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = append(Row(nil), r...)
	}
	return out
}

func shuffled(rows []Row, seed uint64) []Row {
	out := clone(rows)
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func TestDefinitions(t *testing.T) {
	all := All()
	if all[0] != StoreAnswers {
		t.Errorf("first table is %s, want store_answers", all[0].Name)
	}
	seen := map[string]bool{}
	for _, tb := range all {
		if err := tb.Validate(); err != nil {
			t.Error(err)
		}
		if seen[tb.Name] {
			t.Errorf("table %s listed twice", tb.Name)
		}
		seen[tb.Name] = true
		if tb.Title == "" {
			t.Errorf("table %s: no title", tb.Name)
		}
	}
	for _, name := range []string{"store_answers", "stores", "checks", "ucp_validations", "agent_facts",
		"product_data", "policies", "leaderboard_results", "changes"} {
		if !seen[name] {
			t.Errorf("table %s missing from All", name)
		}
	}
	if err := allTypes.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidateRefuses(t *testing.T) {
	ok := func() *Table {
		return &Table{Name: "t", Description: "d", Key: []string{"a"},
			Columns: []Column{req("a", String, "a"), opt("b", Int64, "b")}}
	}
	tests := []struct {
		name string
		edit func(*Table)
		want string
	}{
		{"bad table name", func(t *Table) { t.Name = "Bad-Name" }, "snake_case"},
		{"no description", func(t *Table) { t.Description = "" }, "description"},
		{"no columns", func(t *Table) { t.Columns = nil }, "no columns"},
		{"bad column name", func(t *Table) { t.Columns[1].Name = "B" }, "snake_case"},
		{"duplicate column", func(t *Table) { t.Columns[1].Name = "a" }, "twice"},
		{"unknown type", func(t *Table) { t.Columns[1].Type = 0 }, "unknown type"},
		{"column description", func(t *Table) { t.Columns[1].Description = "" }, "description"},
		{"no key", func(t *Table) { t.Key = nil }, "no key"},
		{"key not a column", func(t *Table) { t.Key = []string{"z"} }, "not a column"},
		{"nullable key", func(t *Table) { t.Key = []string{"b"} }, "nullable"},
		{"key twice", func(t *Table) { t.Key = []string{"a", "a"} }, "twice"},
	}
	if err := ok().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tb := ok()
			tc.edit(tb)
			err := tb.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want error containing %q", err, tc.want)
			}
		})
	}
}

func mustColumns(t testing.TB, tb *Table, rows []Row) *Columns {
	t.Helper()
	c, err := FromRows(tb, rows)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAppendRefuses(t *testing.T) {
	good := func() Row { return clone(edgeRows()[1:2])[0] }
	tests := []struct {
		name string
		row  func() Row
		want string
	}{
		{"short row", func() Row { return good()[:3] }, "3 values for 13 columns"},
		{"null in required", func() Row { r := good(); r[3] = nil; return r }, "not nullable"},
		{"nil pointer in required", func() Row { r := good(); r[3] = (*string)(nil); return r }, "not nullable"},
		{"wrong type", func() Row { r := good(); r[6] = "7"; return r }, "string is not a int64"},
		{"uint not accepted", func() Row { r := good(); r[6] = uint64(7); return r }, "uint64 is not a int64"},
		{"NaN", func() Row { r := good(); r[7] = math.NaN(); return r }, "non-finite"},
		{"Inf", func() Row { r := good(); r[8] = math.Inf(1); return r }, "non-finite"},
		{"bad JSON", func() Row { r := good(); r[12] = `{"a":`; return r }, "invalid JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mustColumns(t, allTypes, clone(edgeRows()))
			err := c.AppendRow(tc.row())
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalidRow) {
				t.Errorf("AppendRow() = %v, want ErrInvalidRow containing %q", err, tc.want)
			}
			if c.Len() != len(edgeRows()) {
				t.Errorf("after a failed append Len() = %d, want %d", c.Len(), len(edgeRows()))
			}
			rows := make([]Row, 50_000)
			for i := range rows {
				rows[i] = good()
			}
			rows[40_000] = tc.row()
			if _, err := FromRows(allTypes, rows); err == nil || !strings.Contains(err.Error(), "row 40000") {
				t.Errorf("FromRows() = %v, want error at row 40000", err)
			}
		})
	}
	t.Run("AppendRows reports the first bad row", func(t *testing.T) {
		rows := make([]Row, 100_000)
		for i := range rows {
			rows[i] = good()
		}
		rows[70_000][3] = nil
		rows[90_000][3] = nil
		rows[30_000][3] = nil
		_, err := FromRows(allTypes, rows)
		if err == nil || !strings.Contains(err.Error(), "row 30000 column rs") {
			t.Errorf("FromRows() = %v, want error at row 30000", err)
		}
	})
}

func TestDuplicateKeys(t *testing.T) {
	for _, rows := range [][]Row{
		{edgeRows()[1], edgeRows()[1]},
		append(clone(edgeRows()), edgeRows()[0]), // unsorted input
	} {
		c := mustColumns(t, allTypes, clone(rows))
		err := c.Sort()
		if err == nil || !strings.Contains(err.Error(), "duplicate key k=") || !errors.Is(err, ErrInvalidRow) {
			t.Errorf("Sort() = %v, want duplicate key error", err)
		}
		if err := WriteParquet(io.Discard, c); err == nil {
			t.Error("WriteParquet accepted duplicate keys")
		}
		if err := WriteCSV(io.Discard, c); err == nil {
			t.Error("WriteCSV accepted duplicate keys")
		}
	}
	// Key order is by every key column: k first, then n.
	multi := &Table{Name: "m", Description: "d", Key: []string{"a", "b"},
		Columns: []Column{req("a", Int64, "a"), req("b", String, "b")}}
	c := mustColumns(t, multi, []Row{{int64(2), "a"}, {int64(1), "b"}, {int64(1), "a"}, {int64(-3), "z"}})
	if err := c.Sort(); err != nil {
		t.Fatal(err)
	}
	want := []Row{{int64(-3), "z"}, {int64(1), "a"}, {int64(1), "b"}, {int64(2), "a"}}
	if diff := cmp.Diff(want, c.Rows()); diff != "" {
		t.Errorf("multi-column key order (-want +got):\n%s", diff)
	}
}

func TestAppendNormalizes(t *testing.T) {
	s, f, b := "s", 2.5, true
	local := time.FixedZone("X", 2*3600)
	when := time.Date(2026, 5, 4, 1, 2, 3, 123456789, local)
	row := Row{"k", 1, &s, "r", &b, false, int32(4), float32(0.5), f, &when, when,
		time.Date(2026, 5, 4, 23, 0, 0, 0, local), json.RawMessage(`{"a":1}`)}
	c := mustColumns(t, allTypes, []Row{row})
	want := Row{"k", int64(1), "s", "r", true, false, int64(4), 0.5, 2.5,
		time.Date(2026, 5, 3, 23, 2, 3, 123456000, time.UTC), time.Date(2026, 5, 3, 23, 2, 3, 123456000, time.UTC),
		time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC), `{"a":1}`}
	got := c.Row(0)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("normalized row (-want +got):\n%s", diff)
	}
	for i, v := range got {
		if tt, ok := v.(time.Time); ok && (tt != want[i] || tt.Location() != time.UTC) {
			t.Errorf("value %d: time %v not canonical UTC", i, tt)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	want := edgeRows()
	t.Run("parquet", func(t *testing.T) {
		var buf bytes.Buffer
		if err := WriteParquet(&buf, mustColumns(t, allTypes, shuffled(want, 1))); err != nil {
			t.Fatal(err)
		}
		got, err := ReadParquet(bytes.NewReader(buf.Bytes()), int64(buf.Len()), allTypes)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got.Rows()); diff != "" {
			t.Errorf("parquet round trip (-want +got):\n%s", diff)
		}
	})
	t.Run("csv", func(t *testing.T) {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, mustColumns(t, allTypes, shuffled(want, 2))); err != nil {
			t.Fatal(err)
		}
		got, err := ReadCSV(bytes.NewReader(buf.Bytes()), allTypes)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got.Rows()); diff != "" {
			t.Errorf("csv round trip (-want +got):\n%s", diff)
		}
	})
	t.Run("empty", func(t *testing.T) {
		var pq, cs bytes.Buffer
		empty := mustColumns(t, allTypes, nil)
		if err := WriteParquet(&pq, empty); err != nil {
			t.Fatal(err)
		}
		if err := WriteCSV(&cs, empty); err != nil {
			t.Fatal(err)
		}
		got, err := ReadParquet(bytes.NewReader(pq.Bytes()), int64(pq.Len()), allTypes)
		if err != nil || got.Len() != 0 {
			t.Errorf("ReadParquet(empty) = %v, %v", got, err)
		}
		got, err = ReadCSV(&cs, allTypes)
		if err != nil || got.Len() != 0 {
			t.Errorf("ReadCSV(empty) = %v, %v", got, err)
		}
	})
}

func TestCSVText(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, mustColumns(t, allTypes, clone(edgeRows()[:3]))); err != nil {
		t.Fatal(err)
	}
	want := "k,n,s,rs,b,rb,i,f,rf,ts,rts,d,j\r\n" +
		`"",-5,"","",false,false,0,0,0,2026-05-04T10:11:12.123456Z,2026-05-04T10:11:12.123456Z,1969-12-31,{}` + "\r\n" +
		`a,1,,x,,true,,,-1.5,,1960-01-01T00:00:00.000001Z,,` + "\r\n" +
		`a,2,"comma, ""quote""` + "\r\n" + `newline"," lead space",true,false,-9223372036854775808,1e-7,1e+21,2000-02-29T23:59:59.999999Z,2026-05-04T10:11:12.123456Z,2026-02-28,"[1,""a,b"",{""x"":null}]"` + "\r\n"
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("CSV text (-want +got):\n%s", diff)
	}
}

func TestReadCSVRefuses(t *testing.T) {
	small := &Table{Name: "small", Description: "d", Key: []string{"a"},
		Columns: []Column{req("a", String, "a"), opt("b", Int64, "b")}}
	tests := []struct{ name, in, want string }{
		{"empty", "", "no header"},
		{"wrong header", "a,c\r\n", `"c", want "b"`},
		{"short header", "a\r\n", "header has 1"},
		{"short row", "a,b\r\nx\r\n", "line 2: 1 fields"},
		{"bad int", "a,b\r\nx,y\r\n", "line 2 column b"},
		{"bare quote", "a,b\r\nx\"y,1\r\n", "bare"},
		{"unterminated", "a,b\r\n\"x,1\r\n", "unterminated"},
		{"after quote", "a,b\r\n\"x\"y,1\r\n", "after quoted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.in), small)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadCSV = %v, want error containing %q", err, tc.want)
			}
		})
	}
	// LF line ends and a missing final line end are read too.
	got, err := ReadCSV(strings.NewReader("a,b\nx,1\ny,"), small)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Row{{"x", int64(1)}, {"y", nil}}, got.Rows()); diff != "" {
		t.Errorf("LF CSV (-want +got):\n%s", diff)
	}
}

func TestReadParquetRefusesOtherSchema(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteParquet(&buf, mustColumns(t, allTypes, clone(edgeRows()))); err != nil {
		t.Fatal(err)
	}
	other := *allTypes
	other.Columns = append([]Column(nil), allTypes.Columns...)
	other.Columns[2].Nullable = false
	if _, err := ReadParquet(bytes.NewReader(buf.Bytes()), int64(buf.Len()), &other); err == nil || !strings.Contains(err.Error(), "optional") {
		t.Errorf("ReadParquet with other nullability = %v, want error", err)
	}
	other.Columns = allTypes.Columns[:5]
	if _, err := ReadParquet(bytes.NewReader(buf.Bytes()), int64(buf.Len()), &other); err == nil {
		t.Error("ReadParquet with fewer columns succeeded")
	}
}

// synthRows returns n store_answers rows in a fixed pseudo-random order.
// The values are a function of the row number, matching
// sql/bench_store_answers.sql row for row.
func synthRows(n int) []Row {
	rows := make([]Row, n)
	base := time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC).UnixMicro()
	categories := []string{"apparel", "footwear", "beauty", "home", "food-drink", "supplements", "outdoor", "kids", "pets", "electronics", "jewelry"}
	platforms := []string{"shopify", "woocommerce", "custom"}
	sources := []string{"seed", "submitted", "third-party-list", "map-derived", "campaign", "opted-out"}
	optBool := func(i, m, k int) any {
		if i%m == 0 {
			return nil
		}
		return i%k == 0
	}
	for i := range n {
		r := make(Row, len(StoreAnswers.Columns))
		r[0] = synthHost(i)
		r[1] = "Store " + itoa(i)
		r[2] = categories[i%11]
		if i%5 == 0 {
			r[3] = nil
		} else {
			r[3] = platforms[i%3]
		}
		r[4] = sources[i%6]
		r[5] = optBool(i, 7, 2)
		r[6] = optBool(i, 3, 4)
		r[7] = optBool(i, 2, 5)
		if i%9 == 0 {
			r[8] = nil
		} else {
			r[8] = int64(i * 37 % 101)
		}
		r[9] = optBool(i, 4, 3)
		r[10] = optBool(i, 6, 2)
		r[11] = optBool(i, 8, 7)
		r[12] = optBool(i, 10, 13)
		if i%3 == 0 {
			r[13] = "Publish a UCP profile at /.well-known/ucp"
		}
		if i%13 == 0 {
			r[14] = nil
		} else {
			r[14] = time.UnixMicro(base + int64(i)*1_000_003).UTC()
		}
		rows[i] = r
	}
	return rows
}

func synthHost(i int) string {
	// A bijective scramble, so hosts are unique and arrive unsorted.
	return "store-" + pad7(i*7919%1_000_003) + ".test"
}

func itoa(i int) string { return pad7(i) }

func pad7(i int) string {
	s := []byte("0000000")
	for k := 6; k >= 0 && i > 0; k-- {
		s[k] = byte('0' + i%10)
		i /= 10
	}
	return string(s)
}

func TestDeterministicBytes(t *testing.T) {
	n := 2*RowGroupRows + 1234 // three row groups, encoded concurrently
	if testing.Short() {
		n = 5000
	}
	rows := synthRows(n)
	write := func(rows []Row, procs int) (pq, cs []byte) {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		c := mustColumns(t, StoreAnswers, rows)
		var p, b bytes.Buffer
		if err := WriteParquet(&p, c); err != nil {
			t.Fatal(err)
		}
		if err := WriteCSV(&b, c); err != nil {
			t.Fatal(err)
		}
		return p.Bytes(), b.Bytes()
	}
	p1, c1 := write(rows, 1)
	p2, c2 := write(shuffled(rows, 7), 4)
	if !bytes.Equal(p1, p2) {
		t.Error("parquet bytes differ between input orders and CPU counts")
	}
	if !bytes.Equal(c1, c2) {
		t.Error("csv bytes differ between input orders")
	}
	want := mustColumns(t, StoreAnswers, rows)
	if err := want.Sort(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadParquet(bytes.NewReader(p1), int64(len(p1)), StoreAnswers)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffRows(want.Rows(), got.Rows()); diff != "" {
		t.Errorf("large parquet round trip (-want +got):\n%s", diff)
	}
	got, err = ReadCSV(bytes.NewReader(c1), StoreAnswers)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffRows(want.Rows(), got.Rows()); diff != "" {
		t.Errorf("large csv round trip (-want +got):\n%s", diff)
	}
}

func TestFrictionlessSchema(t *testing.T) {
	s := allTypes.FrictionlessSchema()
	got, err := json.Marshal(s.Fields[9:13])
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"name":"ts","type":"datetime","format":"any","description":"nullable timestamp"},` +
		`{"name":"rts","type":"datetime","format":"any","description":"required timestamp","constraints":{"required":true}},` +
		`{"name":"d","type":"date","description":"nullable date"},` +
		`{"name":"j","type":"string","description":"JSON text. nullable json"}]`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"k", "n"}, s.PrimaryKey); diff != "" {
		t.Errorf("primary key (-want +got):\n%s", diff)
	}
}

// diffRows compares many canonical rows quickly (canonical values compare
// with ==) and shows cmp.Diff of the first row that differs.
func diffRows(want, got []Row) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if len(want[i]) != len(got[i]) {
			return fmt.Sprintf("row %d: %s", i, cmp.Diff(want[i], got[i]))
		}
		for j := range want[i] {
			if want[i][j] != got[i][j] {
				return fmt.Sprintf("row %d: %s", i, cmp.Diff(want[i], got[i]))
			}
		}
	}
	return ""
}

func TestAppendTimestampMatchesLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	values := []int64{0, -1, 1, -86_400_000_001, time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro(),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro(), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()}
	for range 10_000 {
		values = append(values, rng.Int64N(1<<50)-1<<49)
	}
	for _, us := range values {
		tm := time.UnixMicro(us).UTC()
		if got, want := string(appendTimestamp(nil, us)), tm.Format(csvTimestamp); got != want {
			t.Errorf("appendTimestamp(%d) = %s, want %s", us, got, want)
		}
		if got, want := string(appendDate(nil, tm)), tm.Format(csvDate); got != want {
			t.Errorf("appendDate(%v) = %s, want %s", tm, got, want)
		}
	}
}

package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"svc/datasets"
)

// duckConn is the aggregate stage's in-memory DuckDB, driven through the
// DuckDB C API (duckdb-go's mapping package) rather than database/sql.
// Aggregate reads results of millions of rows: through database/sql every
// value is converted, boxed and scanned on its own, which cost several
// times DuckDB's own query time. Here a result comes a chunk (2,048 rows)
// at a time and each column vector is copied straight into the typed
// slices of a datasets.Columns (queryColumns).
//
// Like duckDSN, it never installs or loads an extension, so DuckDB never
// reaches for the network; Parquet and JSON are built in. A duckConn is one
// connection: use it from one goroutine at a time.
type duckConn struct {
	db   mapping.Database
	conn mapping.Connection
}

// openDuck opens a new in-memory database and one connection to it.
func openDuck() (*duckConn, error) {
	var cfg mapping.Config
	if mapping.CreateConfig(&cfg) == mapping.StateError {
		return nil, errors.New("open duckdb: cannot create a configuration")
	}
	defer mapping.DestroyConfig(&cfg)
	for _, kv := range [][2]string{
		{"autoinstall_known_extensions", "false"},
		{"autoload_known_extensions", "false"},
		{"duckdb_api", "go"},
	} {
		if mapping.SetConfig(cfg, kv[0], kv[1]) == mapping.StateError {
			return nil, fmt.Errorf("open duckdb: set %s=%s", kv[0], kv[1])
		}
	}
	d := &duckConn{}
	var msg string
	if mapping.OpenExt("", &d.db, cfg, &msg) == mapping.StateError {
		mapping.Close(&d.db)
		return nil, fmt.Errorf("open duckdb: %s", msg)
	}
	if mapping.Connect(d.db, &d.conn) == mapping.StateError {
		mapping.Close(&d.db)
		return nil, errors.New("open duckdb: cannot connect")
	}
	return d, nil
}

// Close closes the connection and the database.
func (d *duckConn) Close() {
	mapping.Disconnect(&d.conn)
	mapping.Close(&d.db)
}

// run runs one query (or several, separated by semicolons: the result is
// the last one's), interrupting it when ctx ends. The caller destroys res.
func (d *duckConn) run(ctx context.Context, query string, res *mapping.Result) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var state mapping.State
	if ctx.Done() == nil {
		state = mapping.Query(d.conn, query, res)
	} else {
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			select {
			case <-ctx.Done():
				mapping.Interrupt(d.conn)
			case <-done:
			}
		})
		state = mapping.Query(d.conn, query, res)
		close(done)
		wg.Wait()
	}
	if state == mapping.StateError {
		if err := ctx.Err(); err != nil {
			return err
		}
		return errors.New(mapping.ResultError(res))
	}
	return nil
}

// exec runs statements whose results are not read.
func (d *duckConn) exec(ctx context.Context, query string) error {
	var res mapping.Result
	defer mapping.DestroyResult(&res)
	return d.run(ctx, query, &res)
}

// insertRows runs a prepared statement once per row in one transaction;
// bind binds row i's parameters and reports false when there are no more
// rows.
func (d *duckConn) insertRows(ctx context.Context, stmt string, bind func(ps mapping.PreparedStatement, i int) (bool, error)) error {
	if err := d.exec(ctx, "BEGIN TRANSACTION"); err != nil {
		return err
	}
	err := func() error {
		var ps mapping.PreparedStatement
		defer mapping.DestroyPrepare(&ps)
		if mapping.Prepare(d.conn, stmt, &ps) == mapping.StateError {
			return errors.New(mapping.PrepareError(ps))
		}
		for i := 0; ; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			mapping.ClearBindings(ps)
			more, err := bind(ps, i)
			if err != nil || !more {
				return err
			}
			var res mapping.Result
			state := mapping.ExecutePrepared(ps, &res)
			if state == mapping.StateError {
				err = errors.New(mapping.ResultError(&res))
			}
			mapping.DestroyResult(&res)
			if err != nil {
				return err
			}
		}
	}()
	if err != nil {
		return errors.Join(err, d.exec(context.WithoutCancel(ctx), "ROLLBACK"))
	}
	return d.exec(ctx, "COMMIT")
}

// bindState turns a failed bind into an error.
func bindState(s mapping.State, what string) error {
	if s == mapping.StateError {
		return fmt.Errorf("bind %s", what)
	}
	return nil
}

// duckRows is a small result read whole: column names and one []any per
// row, nil for null, values as database/sql's DuckDB driver gives them
// (string, bool, int64, float64, time.Time in UTC).
type duckRows struct {
	names []string
	rows  [][]any
}

// query runs a query with a small result and reads it whole.
func (d *duckConn) query(ctx context.Context, query string) (*duckRows, error) {
	var res mapping.Result
	defer mapping.DestroyResult(&res)
	if err := d.run(ctx, query, &res); err != nil {
		return nil, err
	}
	n := int(mapping.ColumnCount(&res))
	out := &duckRows{names: make([]string, n)}
	types := make([]mapping.Type, n)
	for j := range n {
		out.names[j] = mapping.ColumnName(&res, mapping.IdxT(j))
		types[j] = mapping.ColumnType(&res, mapping.IdxT(j))
	}
	for {
		chunk := mapping.FetchChunk(res)
		if chunk.Ptr == nil {
			return out, nil
		}
		size := int(mapping.DataChunkGetSize(chunk))
		base := len(out.rows)
		for range size {
			out.rows = append(out.rows, make([]any, n))
		}
		var err error
		for j := range n {
			vec := mapping.DataChunkGetVector(chunk, mapping.IdxT(j))
			v := vectorOf(vec, size)
			for k := range size {
				if !v.valid(k) {
					continue
				}
				if out.rows[base+k][j], err = v.value(types[j], k); err != nil {
					err = fmt.Errorf("column %s: %w", out.names[j], err)
					break
				}
			}
			if err != nil {
				break
			}
		}
		mapping.DestroyDataChunk(&chunk)
		if err != nil {
			return nil, err
		}
	}
}

// scan copies the row's values into dst, which hold *string, **string,
// *int64, **int64, *bool or **time.Time: a null goes into a pointer to a
// pointer only.
func scanRow(row []any, dst ...any) error {
	if len(row) != len(dst) {
		return fmt.Errorf("scan: %d values into %d targets", len(row), len(dst))
	}
	for i, v := range row {
		ok := true
		switch p := dst[i].(type) {
		case *string:
			*p, ok = v.(string)
		case **string:
			if v == nil {
				*p = nil
			} else if s, isStr := v.(string); isStr {
				*p = &s
			} else {
				ok = false
			}
		case *int64:
			*p, ok = v.(int64)
		case **int64:
			if v == nil {
				*p = nil
			} else if n, isInt := v.(int64); isInt {
				*p = &n
			} else {
				ok = false
			}
		case *bool:
			*p, ok = v.(bool)
		case **time.Time:
			if v == nil {
				*p = nil
			} else if t, isTime := v.(time.Time); isTime {
				*p = &t
			} else {
				ok = false
			}
		default:
			return fmt.Errorf("scan: unsupported target %T", dst[i])
		}
		if !ok {
			return fmt.Errorf("scan: column %d: cannot store %T (%v) in %T", i, v, v, dst[i])
		}
	}
	return nil
}

// queryColumns runs a query whose result has t's column names in t's order
// and reads it into t's columns, chunk by chunk, column by column. Nulls in
// a column that is not nullable are refused; JSON text built by DuckDB is
// taken as it is (datasets.Columns.AppendColumns). The derived columns are
// computed here from other columns of the row; the query returns them null.
func (d *duckConn) queryColumns(ctx context.Context, t *datasets.Table, query string, derived ...derivedColumn) (*datasets.Columns, error) {
	var res mapping.Result
	defer mapping.DestroyResult(&res)
	if err := d.run(ctx, query, &res); err != nil {
		return nil, err
	}
	n := int(mapping.ColumnCount(&res))
	names := make([]string, n)
	types := make([]mapping.Type, n)
	for j := range n {
		names[j] = mapping.ColumnName(&res, mapping.IdxT(j))
		types[j] = mapping.ColumnType(&res, mapping.IdxT(j))
	}
	if want := t.ColumnNames(); !slices.Equal(names, want) {
		return nil, fmt.Errorf("table %s: the query returns columns %v, want %v", t.Name, names, want)
	}
	for j, c := range t.Columns {
		if !loadable(c.Type, types[j]) {
			return nil, fmt.Errorf("table %s column %s: DuckDB type %d does not load into a %s column", t.Name, c.Name, types[j], c.Type)
		}
	}
	// Column j is read from result column src[j]: its own, or for a
	// derived column the one derivers[j] computes it from.
	src := make([]int, len(t.Columns))
	derivers := make([]*deriver, len(t.Columns))
	for j := range src {
		src[j] = j
	}
	for _, dc := range derived {
		j, from := t.ColumnIndex(dc.column), t.ColumnIndex(dc.from)
		if j < 0 || from < 0 || t.Columns[j].Type != datasets.String || !isText(t.Columns[from].Type) {
			return nil, fmt.Errorf("table %s: cannot derive column %s from %s", t.Name, dc.column, dc.from)
		}
		src[j], derivers[j] = from, newDeriver(dc.value)
	}
	// Room for every row up front: growing million-row columns a chunk at
	// a time copies them over and over. A materialized result knows its
	// chunk count; all but the last chunk are usually full.
	//lint:ignore SA1019 duckdb_result_chunk_count is deprecated for streaming results only
	capacity := int(mapping.ResultChunkCount(res)) * int(mapping.VectorSize())
	cols, err := datasets.NewColumns(t, capacity)
	if err != nil {
		return nil, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		chunk := mapping.FetchChunk(res)
		if chunk.Ptr == nil {
			break
		}
		size := int(mapping.DataChunkGetSize(chunk))
		err := cols.AppendColumns(size, func(b datasets.Batch) error {
			for j, c := range t.Columns {
				v := vectorOf(mapping.DataChunkGetVector(chunk, mapping.IdxT(src[j])), size)
				valid := b.Valid(j)
				if v.mask != nil {
					if valid == nil {
						for k := range size {
							if !v.valid(k) {
								return fmt.Errorf("table %s row %d column %s: null in a column that is not nullable: %w",
									t.Name, cols.Len()-size+k, c.Name, datasets.ErrInvalidRow)
							}
						}
					} else {
						for k := range valid {
							valid[k] = v.valid(k)
						}
					}
				}
				switch {
				case derivers[j] != nil:
					v.derive(b, j, valid, derivers[j])
				case isText(c.Type):
					v.strings(b, j, valid)
				case c.Type == datasets.Bool:
					v.bools(b.Bools(j), valid)
				case c.Type == datasets.Float64:
					v.floats(types[j], b.Float64s(j), valid)
				default: // Int64, Timestamp, Date
					v.ints(types[j], b.Int64s(j), valid)
				}
			}
			return nil
		})
		mapping.DestroyDataChunk(&chunk)
		if err != nil {
			return nil, err
		}
	}
	return cols, nil
}

// A derivedColumn is a String column that queryColumns computes from a
// String or JSON column of the same row (from) rather than reading it from
// DuckDB, for values Go computes much faster: value appends the value for
// from's text to buf. It is null where from is.
type derivedColumn struct {
	column, from string
	value        func(buf []byte, from string) []byte
}

func isText(t datasets.Type) bool { return t == datasets.String || t == datasets.JSON }

// A deriver computes one derived column's values. It remembers the values
// of the first deriverMemo distinct texts it sees: in agent_facts two of
// the three facts with evidence have a few hundred distinct texts over
// any number of stores, so most evidence is looked up rather than hashed
// again, and its hash shares one copy.
type deriver struct {
	value func([]byte, string) []byte
	memo  map[string]string
	buf   []byte
}

const deriverMemo = 1 << 12

func newDeriver(value func([]byte, string) []byte) *deriver {
	return &deriver{value: value, memo: map[string]string{}}
}

// derive returns the value for from, copied into batch column j's storage.
func (d *deriver) derive(b datasets.Batch, j int, from string) string {
	if s, ok := d.memo[from]; ok {
		return s
	}
	d.buf = d.value(d.buf[:0], from)
	s := b.CopyString(j, unsafe.String(unsafe.SliceData(d.buf), len(d.buf)))
	if len(d.memo) < deriverMemo {
		d.memo[strings.Clone(from)] = s
	}
	return s
}

// loadable reports whether a DuckDB column of type dt loads into a column
// of type ct, as database/sql's scanning into datasets rows accepted it.
func loadable(ct datasets.Type, dt mapping.Type) bool {
	switch ct {
	case datasets.String, datasets.JSON:
		return dt == mapping.TypeVarchar
	case datasets.Bool:
		return dt == mapping.TypeBoolean
	case datasets.Int64:
		return dt == mapping.TypeBigInt || dt == mapping.TypeInteger || dt == mapping.TypeSmallInt || dt == mapping.TypeTinyInt
	case datasets.Float64:
		return dt == mapping.TypeDouble || dt == mapping.TypeFloat
	case datasets.Timestamp:
		return dt == mapping.TypeTimestampTZ || dt == mapping.TypeTimestamp
	case datasets.Date:
		return dt == mapping.TypeDate
	}
	return false
}

// vector is one column of a fetched chunk: DuckDB's flat vector layout.
type vector struct {
	data unsafe.Pointer
	mask unsafe.Pointer // validity bits, one per row; nil when no row is null
	n    int
}

func vectorOf(vec mapping.Vector, n int) vector {
	return vector{data: mapping.VectorGetData(vec), mask: mapping.VectorGetValidity(vec), n: n}
}

func (v vector) valid(k int) bool {
	if v.mask == nil {
		return true
	}
	w := *(*uint64)(unsafe.Add(v.mask, k/64*8))
	return w&(1<<(k%64)) != 0
}

// str returns row k's string, aliasing DuckDB's memory: a duckdb_string_t
// is 16 bytes, a uint32 length, then the bytes inline when they fit in 12,
// else a pointer at offset 8.
func (v vector) str(k int) string {
	p := unsafe.Add(v.data, k*16)
	n := *(*uint32)(p)
	if n <= 12 {
		return unsafe.String((*byte)(unsafe.Add(p, 4)), n)
	}
	return unsafe.String(*(**byte)(unsafe.Add(p, 8)), n)
}

// strings copies the column's strings into batch column j.
func (v vector) strings(b datasets.Batch, j int, valid []bool) {
	dst := b.Strings(j)
	for k := range dst {
		if valid == nil || valid[k] {
			dst[k] = b.CopyString(j, v.str(k))
		}
	}
}

// derive fills batch column j with d's values for the column's strings.
func (v vector) derive(b datasets.Batch, j int, valid []bool, d *deriver) {
	dst := b.Strings(j)
	for k := range dst {
		if valid == nil || valid[k] {
			dst[k] = d.derive(b, j, v.str(k))
		}
	}
}

func (v vector) bools(dst []bool, valid []bool) {
	src := unsafe.Slice((*bool)(v.data), v.n)
	copy(dst, src)
	for k := range dst {
		if valid != nil && !valid[k] {
			dst[k] = false
		}
	}
}

func (v vector) floats(t mapping.Type, dst []float64, valid []bool) {
	if t == mapping.TypeDouble {
		copy(dst, unsafe.Slice((*float64)(v.data), v.n))
	} else {
		for k, f := range unsafe.Slice((*float32)(v.data), v.n) {
			dst[k] = float64(f)
		}
	}
	for k := range dst {
		if valid != nil && !valid[k] {
			dst[k] = 0
		}
	}
}

func (v vector) ints(t mapping.Type, dst []int64, valid []bool) {
	switch t {
	case mapping.TypeBigInt, mapping.TypeTimestampTZ, mapping.TypeTimestamp:
		copy(dst, unsafe.Slice((*int64)(v.data), v.n))
	case mapping.TypeInteger, mapping.TypeDate:
		for k, x := range unsafe.Slice((*int32)(v.data), v.n) {
			dst[k] = int64(x)
		}
	case mapping.TypeSmallInt:
		for k, x := range unsafe.Slice((*int16)(v.data), v.n) {
			dst[k] = int64(x)
		}
	case mapping.TypeTinyInt:
		for k, x := range unsafe.Slice((*int8)(v.data), v.n) {
			dst[k] = int64(x)
		}
	}
	for k := range dst {
		if valid != nil && !valid[k] {
			dst[k] = 0
		}
	}
}

// value returns row k as database/sql's DuckDB driver would.
func (v vector) value(t mapping.Type, k int) (any, error) {
	switch t {
	case mapping.TypeVarchar:
		return strings.Clone(v.str(k)), nil
	case mapping.TypeBoolean:
		return *(*bool)(unsafe.Add(v.data, k)), nil
	case mapping.TypeBigInt:
		return *(*int64)(unsafe.Add(v.data, k*8)), nil
	case mapping.TypeInteger:
		return int64(*(*int32)(unsafe.Add(v.data, k*4))), nil
	case mapping.TypeDouble:
		return *(*float64)(unsafe.Add(v.data, k*8)), nil
	case mapping.TypeTimestampTZ, mapping.TypeTimestamp:
		return time.UnixMicro(*(*int64)(unsafe.Add(v.data, k*8))).UTC(), nil
	case mapping.TypeDate:
		return time.Unix(int64(*(*int32)(unsafe.Add(v.data, k*4)))*86400, 0).UTC(), nil
	}
	return nil, fmt.Errorf("unsupported DuckDB type %d", t)
}

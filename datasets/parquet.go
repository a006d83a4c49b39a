package datasets

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// Parquet layout constants. They are part of what makes the bytes of a file
// a function of its rows only; changing one changes every published file,
// so change them together with the method version.
const (
	// RowGroupRows is the number of rows per row group (the last one may be
	// shorter). It matches DuckDB's default row group size.
	RowGroupRows = 122_880
	// rowsPerWrite bounds the rows handed to a column writer at once, which
	// bounds page size (a page is cut only between writes).
	rowsPerWrite = 512
)

var zstdCodec = &zstd.Codec{Level: zstd.SpeedDefault}

// ParquetSchema returns the Parquet schema of t: one top-level column per
// definition column, in definition order, OPTIONAL where nullable.
func (t *Table) ParquetSchema() *parquet.Schema {
	fields := make([]parquet.Field, len(t.Columns))
	for i, c := range t.Columns {
		n := leafNode(c.Type)
		// Integers (counts, scores, times, days) are small or ordered, so
		// delta encoding shrinks them before zstd sees them. Booleans stay
		// plain: parquet-go's RLE boolean encoder writes a run of trues as
		// 0xFF where the format wants 1, and DuckDB then refuses the file
		// ("Payload value bigger than allowed") once eight trues follow
		// each other. Strings stay plain: parquet-go's dictionary encoding
		// measured bigger and slower here.
		switch c.Type {
		case Int64, Timestamp, Date:
			n = parquet.Encoded(n, &parquet.DeltaBinaryPacked)
		}
		if c.Nullable {
			n = parquet.Optional(n)
		}
		fields[i] = &orderedField{Node: n, name: c.Name, index: i}
	}
	return parquet.NewSchema(t.Name, &orderedGroup{fields: fields})
}

func leafNode(typ Type) parquet.Node {
	switch typ {
	case String, JSON:
		return parquet.String()
	case Bool:
		return parquet.Leaf(parquet.BooleanType)
	case Int64:
		return parquet.Int(64)
	case Float64:
		return parquet.Leaf(parquet.DoubleType)
	case Timestamp:
		return parquet.Timestamp(parquet.Microsecond) // adjusted to UTC
	case Date:
		return parquet.Date()
	}
	panic(fmt.Sprintf("datasets: no parquet type for %v", typ))
}

// WriteParquet writes the rows of c as one Parquet file to w: zstd pages,
// row groups of RowGroupRows, rows in key order (Sort runs first), no
// wall-clock metadata. Row groups are encoded on all CPUs and written in
// order, so the bytes depend only on the rows.
func WriteParquet(w io.Writer, c *Columns) error {
	if err := c.Sort(); err != nil {
		return fmt.Errorf("write parquet %s: %w", c.table.Name, err)
	}
	if err := writeParquet(w, c); err != nil {
		return fmt.Errorf("write parquet %s: %w", c.table.Name, err)
	}
	return nil
}

func writeParquet(w io.Writer, c *Columns) error {
	pw := newParquetWriter(w, c.table)
	if err := writeParquetGroups(pw, c); err != nil {
		return err
	}
	return pw.Close()
}

func newParquetWriter(w io.Writer, t *Table) *parquet.GenericWriter[any] {
	opts := []parquet.WriterOption{
		t.ParquetSchema(),
		parquet.Compression(zstdCodec),
		parquet.MaxRowsPerRowGroup(RowGroupRows),
		// Min/max stay in the column chunks and the page index, where
		// readers prune with them; repeating them in every page header
		// costs a second scan of each page.
		parquet.DataPageStatistics(false),
	}
	kv := writerMetadata(t)
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		opts = append(opts, parquet.KeyValueMetadata(k, kv[k]))
	}
	return parquet.NewGenericWriter[any](w, opts...)
}

// writerMetadata is the key-value metadata newParquetWriter writes for t
// (the writer sorts it by key in the footer).
func writerMetadata(t *Table) map[string]string {
	return map[string]string{"svc.table": t.Name, "license": License, "attribution": Attribution}
}

// writeParquetGroups writes the rows of c as row groups of RowGroupRows
// rows (the last may be shorter), encoded on all CPUs, committed in order.
func writeParquetGroups(pw *parquet.GenericWriter[any], c *Columns) error {
	groups := (c.n + RowGroupRows - 1) / RowGroupRows
	workers := min(runtime.GOMAXPROCS(0), groups)

	// Workers encode row groups g ≡ k (mod workers) into their own
	// ConcurrentRowGroupWriter; commits happen strictly in group order.
	var (
		mu     sync.Mutex
		turn   = sync.NewCond(&mu)
		next   int // the group whose commit is due
		failed error
	)
	rgs := make([]*parquet.ConcurrentRowGroupWriter, workers)
	for k := range rgs {
		rgs[k] = pw.BeginRowGroup()
	}
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			enc := newGroupEncoder(c, rgs[k])
			for g := k; g < groups; g += workers {
				err := enc.encode(g*RowGroupRows, min((g+1)*RowGroupRows, c.n))
				mu.Lock()
				for next != g && failed == nil {
					turn.Wait()
				}
				if failed == nil && err == nil {
					_, err = rgs[k].Commit()
				}
				if err != nil && failed == nil {
					failed = fmt.Errorf("row group %d: %w", g, err)
				}
				next++
				turn.Broadcast()
				stop := failed != nil
				mu.Unlock()
				if stop {
					return
				}
			}
		})
	}
	wg.Wait()
	return failed
}

// groupEncoder turns column slices into parquet values and writes them
// into one row group writer, flushing its pages before the commit so the
// serial part stays small.
type groupEncoder struct {
	c    *Columns
	rg   *parquet.ConcurrentRowGroupWriter
	cols []*parquet.ColumnWriter
	vals []parquet.Value
}

func newGroupEncoder(c *Columns, rg *parquet.ConcurrentRowGroupWriter) *groupEncoder {
	return &groupEncoder{c: c, rg: rg, cols: rg.ColumnWriters(), vals: make([]parquet.Value, rowsPerWrite)}
}

// encode writes rows [lo, hi) column by column.
func (e *groupEncoder) encode(lo, hi int) error {
	for j, w := range e.cols {
		col := &e.c.table.Columns[j]
		v := &e.c.vecs[j]
		for start := lo; start < hi; start += rowsPerWrite {
			end := min(start+rowsPerWrite, hi)
			vals := e.vals[:end-start]
			fillValues(vals, col, j, v, start)
			if _, err := w.WriteRowValues(vals); err != nil {
				return fmt.Errorf("column %s: %w", col.Name, err)
			}
		}
	}
	clear(e.vals) // drop references into row strings
	return e.rg.Flush()
}

// fillValues converts rows [start, start+len(vals)) of one column. Byte
// arrays alias the strings' memory; column buffers copy them. One tight
// loop per type, then one for levels: this is the hot path of a snapshot.
func fillValues(vals []parquet.Value, col *Column, j int, v *vector, start int) {
	end := start + len(vals)
	switch v.store {
	case inStr:
		for i, s := range v.str[start:end] {
			vals[i] = parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s)))
		}
	case inBln:
		for i, b := range v.bln[start:end] {
			vals[i] = parquet.BooleanValue(b)
		}
	case inFlt:
		for i, f := range v.flt[start:end] {
			vals[i] = parquet.DoubleValue(f)
		}
	case inNum:
		if col.Type == Date {
			for i, d := range v.num[start:end] {
				vals[i] = parquet.Int32Value(int32(d))
			}
		} else {
			for i, n := range v.num[start:end] {
				vals[i] = parquet.Int64Value(n)
			}
		}
	}
	if v.valid == nil {
		for i := range vals {
			vals[i].SetColumnIndex(j)
		}
		return
	}
	for i, ok := range v.valid[start:end] {
		if ok {
			vals[i].SetDefinitionLevel(1)
		} else {
			vals[i] = parquet.Value{} // null, definition level 0
		}
		vals[i].SetColumnIndex(j)
	}
}

// ReadParquet reads a Parquet file written for t (same column names, order,
// types and nullability), keeping the file's row order.
func ReadParquet(r io.ReaderAt, size int64, t *Table) (*Columns, error) {
	c, err := readParquet(r, size, t)
	if err != nil {
		return nil, fmt.Errorf("read parquet %s: %w", t.Name, err)
	}
	return c, nil
}

func readParquet(r io.ReaderAt, size int64, t *Table) (*Columns, error) {
	f, err := openParquet(r, size, t)
	if err != nil {
		return nil, err
	}
	c, err := NewColumns(t, int(f.NumRows()))
	if err != nil {
		return nil, err
	}
	c.copiers = make([]stringCopier, len(c.vecs))
	for g, rg := range f.RowGroups() {
		if err := c.readRowGroup(rg); err != nil {
			return nil, fmt.Errorf("row group %d: %w", g, err)
		}
	}
	if int64(c.n) != f.NumRows() {
		return nil, fmt.Errorf("read %d rows, footer says %d", c.n, f.NumRows())
	}
	c.sorted = false // file order, not checked
	return c, nil
}

// ReadParquetGroups reads a Parquet file written for t (see ReadParquet)
// one row group at a time, in file order, and calls fn with the rows of
// each: a new Columns each time, in file order. Only the group being read
// and those fn keeps are in memory, so a large file is read in the memory
// of one group.
func ReadParquetGroups(r io.ReaderAt, size int64, t *Table, fn func(*Columns) error) error {
	f, err := openParquet(r, size, t)
	if err != nil {
		return fmt.Errorf("read parquet %s: %w", t.Name, err)
	}
	for g, rg := range f.RowGroups() {
		c, err := NewColumns(t, int(rg.NumRows()))
		if err != nil {
			return err
		}
		c.copiers = make([]stringCopier, len(c.vecs))
		if err := c.readRowGroup(rg); err != nil {
			return fmt.Errorf("read parquet %s: row group %d: %w", t.Name, g, err)
		}
		c.sorted = c.n <= 1
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

func openParquet(r io.ReaderAt, size int64, t *Table) (*parquet.File, error) {
	f, err := parquet.OpenFile(r, size)
	if err != nil {
		return nil, err
	}
	if err := checkParquetSchema(t, f.Schema()); err != nil {
		return nil, err
	}
	return f, nil
}

// readRowGroup appends the rows of one row group to c, column by column
// on all CPUs: each column chunk is decoded into its own vector, page by
// page.
func (c *Columns) readRowGroup(rg parquet.RowGroup) error {
	base, n := c.n, int(rg.NumRows())
	c.grow(n)
	chunks := rg.ColumnChunks()
	errs := make([]error, len(chunks))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Go(func() {
			var buf []parquet.Value
			for j := range jobs {
				errs[j] = c.readColumnChunk(j, chunks[j], base, n, &buf)
			}
		})
	}
	for j := range chunks {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	return errors.Join(errs...)
}

// readColumnChunk decodes column j of one row group into rows [base,
// base+n). Plain pages (what WriteParquet writes) are copied from their
// decoded buffers; other pages (dictionary-encoded, say) go value by value.
func (c *Columns) readColumnChunk(j int, cc parquet.ColumnChunk, base, n int, buf *[]parquet.Value) error {
	col := &c.table.Columns[j]
	pages := cc.Pages()
	defer pages.Close()
	i, end := base, base+n
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("column %s: %w", col.Name, err)
		}
		rows := int(p.NumRows())
		if rows > end-i {
			parquet.Release(p)
			return fmt.Errorf("column %s: pages hold more than the row group's %d rows", col.Name, n)
		}
		if !c.readPlainPage(j, p, i, rows) {
			err = c.readPageValues(j, p, i, rows, buf)
		}
		parquet.Release(p)
		if err != nil {
			return fmt.Errorf("column %s: %w", col.Name, err)
		}
		i += rows
	}
	if i != end {
		return fmt.Errorf("column %s: %d rows, want %d", col.Name, i-base, n)
	}
	return nil
}

// readPlainPage copies a page of plain values into rows [i, i+rows) of
// column j; false means the page is not one it reads (and nothing was
// written).
func (c *Columns) readPlainPage(j int, p parquet.Page, i, rows int) bool {
	if p.Dictionary() != nil || len(p.RepetitionLevels()) > 0 {
		return false
	}
	v := &c.vecs[j]
	def := p.DefinitionLevels()
	if len(def) != rows && (len(def) != 0 || v.valid != nil || p.NumNulls() != 0) {
		return false
	}
	present := rows - int(p.NumNulls())
	vals := p.Data()
	var count int
	switch c.table.Columns[j].Type {
	case String, JSON:
		if vals.Kind() != encoding.ByteArray {
			return false
		}
		_, offs := vals.ByteArray()
		count = len(offs) - 1
	case Bool:
		if vals.Kind() != encoding.Boolean || len(vals.Boolean())*8 < present {
			return false
		}
		count = present
	case Int64, Timestamp:
		if vals.Kind() != encoding.Int64 {
			return false
		}
		count = len(vals.Int64())
	case Date:
		if vals.Kind() != encoding.Int32 {
			return false
		}
		count = len(vals.Int32())
	case Float64:
		if vals.Kind() != encoding.Double {
			return false
		}
		count = len(vals.Double())
	}
	if count < present {
		return false
	}
	valid := func(r int) bool { return def == nil || def[r] != 0 }
	if v.valid != nil {
		for r := range rows {
			v.valid[i+r] = valid(r)
		}
	}
	k := 0 // the next present value
	switch c.table.Columns[j].Type {
	case String, JSON:
		data, offs := vals.ByteArray()
		sc := &c.copiers[j]
		for r := range rows {
			if valid(r) {
				b := data[offs[k]:offs[k+1]]
				v.str[i+r] = sc.copy(unsafe.String(unsafe.SliceData(b), len(b)))
				k++
			}
		}
	case Bool:
		bits := vals.Boolean()
		for r := range rows {
			if valid(r) {
				v.bln[i+r] = bits[k/8]>>(k%8)&1 != 0
				k++
			}
		}
	case Int64, Timestamp:
		src := vals.Int64()
		for r := range rows {
			if valid(r) {
				v.num[i+r] = src[k]
				k++
			}
		}
	case Date:
		src := vals.Int32()
		for r := range rows {
			if valid(r) {
				v.num[i+r] = int64(src[k])
				k++
			}
		}
	case Float64:
		src := vals.Double()
		for r := range rows {
			if valid(r) {
				v.flt[i+r] = src[k]
				k++
			}
		}
	}
	return true
}

// readPageValues reads a page value by value into rows [i, i+rows) of
// column j.
func (c *Columns) readPageValues(j int, p parquet.Page, i, rows int, buf *[]parquet.Value) error {
	if len(*buf) == 0 {
		*buf = make([]parquet.Value, 256)
	}
	vr := p.Values()
	r := 0
	for r < rows {
		k, err := vr.ReadValues((*buf)[:min(len(*buf), rows-r)])
		for _, pv := range (*buf)[:k] {
			c.setParquet(i+r, j, pv)
			r++
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	clear(*buf)
	if r != rows {
		return fmt.Errorf("page holds %d values for %d rows", r, rows)
	}
	return nil
}

func (c *Columns) setParquet(i, j int, pv parquet.Value) {
	v := &c.vecs[j]
	if v.valid != nil {
		v.valid[i] = !pv.IsNull()
	}
	if pv.IsNull() {
		return
	}
	switch c.table.Columns[j].Type {
	case String, JSON:
		b := pv.ByteArray()
		v.str[i] = c.copier(j).copy(unsafe.String(unsafe.SliceData(b), len(b)))
	case Bool:
		v.bln[i] = pv.Boolean()
	case Int64, Timestamp:
		v.num[i] = pv.Int64()
	case Float64:
		v.flt[i] = pv.Double()
	case Date:
		v.num[i] = int64(pv.Int32())
	}
}

// ParquetCanonical returns nil when the footer of a Parquet file shows
// the layout WriteParquet gives t's rows: exactly t's columns, every column
// chunk zstd-compressed, every row group but the last of RowGroupRows rows,
// and the writer's key-value metadata (table name, licence, attribution).
// Such a file, once its rows are read and found in key order, holds what
// WriteParquet would write for them, so it can be published as is rather
// than encoded again. Otherwise the error says what differs.
func ParquetCanonical(r io.ReaderAt, size int64, t *Table) error {
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("parquet footer: %w", err)
	}
	if err := checkParquetSchema(t, f.Schema()); err != nil {
		return err
	}
	md := f.Metadata()
	want := writerMetadata(t)
	if len(md.KeyValueMetadata) != len(want) {
		return fmt.Errorf("%d key-value metadata entries, want %d", len(md.KeyValueMetadata), len(want))
	}
	for _, kv := range md.KeyValueMetadata {
		if v, ok := want[kv.Key]; !ok || kv.Value != v {
			return fmt.Errorf("metadata %q=%q, want %q", kv.Key, kv.Value, v)
		}
	}
	for g, rg := range md.RowGroups {
		if g < len(md.RowGroups)-1 && rg.NumRows != RowGroupRows {
			return fmt.Errorf("row group %d holds %d rows, want %d", g, rg.NumRows, RowGroupRows)
		}
		for _, cc := range rg.Columns {
			if cc.MetaData.Codec != format.Zstd {
				return fmt.Errorf("row group %d: column %s is %v-compressed, want zstd", g, strings.Join(cc.MetaData.PathInSchema, "."), cc.MetaData.Codec)
			}
		}
	}
	return nil
}

// checkParquetSchema refuses a file whose columns are not exactly t's.
func checkParquetSchema(t *Table, s *parquet.Schema) error {
	fields := s.Fields()
	if len(fields) != len(t.Columns) {
		return fmt.Errorf("file has %d columns, table has %d", len(fields), len(t.Columns))
	}
	for i, c := range t.Columns {
		f := fields[i]
		want := leafNode(c.Type)
		switch {
		case f.Name() != c.Name:
			return fmt.Errorf("column %d is %q, want %q", i, f.Name(), c.Name)
		case !f.Leaf() || f.Repeated():
			return fmt.Errorf("column %s: not a flat leaf column", c.Name)
		case f.Optional() != c.Nullable:
			return fmt.Errorf("column %s: optional=%v, want %v", c.Name, f.Optional(), c.Nullable)
		case f.Type().Kind() != want.Type().Kind():
			return fmt.Errorf("column %s: physical type %v, want %v", c.Name, f.Type().Kind(), want.Type().Kind())
		case !sameLogicalType(f.Type().LogicalType(), want.Type().LogicalType()):
			return fmt.Errorf("column %s: logical type %v, want %v", c.Name, f.Type().LogicalType(), want.Type().LogicalType())
		}
	}
	return nil
}

func sameLogicalType(a, b *format.LogicalType) bool {
	str := func(l *format.LogicalType) string {
		if l == nil {
			return ""
		}
		return l.String()
	}
	return str(a) == str(b)
}

// orderedGroup is a Parquet group node that keeps its fields in the given
// order (parquet.Group is a map and sorts fields by name).
type orderedGroup struct {
	fields []parquet.Field
}

func (g *orderedGroup) ID() int                     { return 0 }
func (g *orderedGroup) Type() parquet.Type          { return parquet.Group{}.Type() }
func (g *orderedGroup) Optional() bool              { return false }
func (g *orderedGroup) Repeated() bool              { return false }
func (g *orderedGroup) Required() bool              { return true }
func (g *orderedGroup) Leaf() bool                  { return false }
func (g *orderedGroup) Fields() []parquet.Field     { return g.fields }
func (g *orderedGroup) Encoding() encoding.Encoding { return nil }
func (g *orderedGroup) Compression() compress.Codec { return nil }
func (g *orderedGroup) String() string {
	var b strings.Builder
	_ = parquet.PrintSchema(&b, "", g)
	return b.String()
}

// GoType is a struct with one exported field per column, tagged with the
// column name; svc never writes through it, but parquet-go may ask.
func (g *orderedGroup) GoType() reflect.Type {
	sf := make([]reflect.StructField, len(g.fields))
	for i, f := range g.fields {
		sf[i] = reflect.StructField{
			Name: fmt.Sprintf("F%d", i),
			Type: f.GoType(),
			Tag:  reflect.StructTag(fmt.Sprintf(`parquet:%q`, f.Name())),
		}
	}
	return reflect.StructOf(sf)
}

type orderedField struct {
	parquet.Node
	name  string
	index int
}

func (f *orderedField) Name() string { return f.name }

func (f *orderedField) Value(base reflect.Value) reflect.Value {
	for base.Kind() == reflect.Interface || base.Kind() == reflect.Pointer {
		if base.IsNil() {
			return reflect.Value{}
		}
		base = base.Elem()
	}
	if base.Kind() == reflect.Struct {
		return base.Field(f.index)
	}
	return reflect.Value{}
}

// ParquetNumRows reads the row count from a Parquet file's footer. The
// publisher uses it to check a file before it is renamed into place.
func ParquetNumRows(r io.ReaderAt, size int64) (int64, error) {
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return 0, fmt.Errorf("parquet footer: %w", err)
	}
	return f.NumRows(), nil
}

package datasets

import (
	"fmt"
	"io"
	"reflect"
	"strings"

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

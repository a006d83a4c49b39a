// Package datasets is svc's data model: one definition per published table
// (columns, types, nullability, descriptions) and the Parquet and CSV writers
// and readers driven by it. The same definitions feed the DuckDB analyst views,
// the snapshot manifest and the Frictionless datapackage.json, so a column is
// described in exactly one place.
//
// A stage hands its rows over as [Row] values (one Go value per column, nil
// for null) appended to a [Columns], which holds them column by column in
// typed slices: compact, and fast to sort and encode at a million rows. Null
// always means "not measured"; it is never written as zero, false or an empty
// string. Writers sort by the table's key, so the bytes of a file depend only
// on the set of rows, never on the order a stage produced them in.
package datasets

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
)

// Type is the logical type of a column. It decides the Go value a row holds,
// the Parquet physical and logical type and the CSV text form.
type Type int

// The column types. Every type may be nullable.
const (
	// String is UTF-8 text: Go string; Parquet BYTE_ARRAY (STRING).
	String Type = iota + 1
	// Bool is a boolean: Go bool; Parquet BOOLEAN; CSV true/false.
	Bool
	// Int64 is a signed integer: Go int64; Parquet INT64.
	Int64
	// Float64 is a finite double: Go float64; Parquet DOUBLE. NaN and
	// infinities are refused (an unmeasured value is null).
	Float64
	// Timestamp is an instant: Go time.Time, stored as microseconds since
	// the epoch in UTC (Parquet INT64 TIMESTAMP(MICROS, adjusted to UTC));
	// CSV 2006-01-02T15:04:05.000000Z. Finer precision is truncated.
	Timestamp
	// Date is a calendar day: Go time.Time whose own year, month and day
	// are the date (readers return midnight UTC); Parquet INT32 DATE; CSV
	// 2006-01-02.
	Date
	// JSON is a JSON document kept as text: Go string (json.RawMessage and
	// []byte are accepted when writing); Parquet BYTE_ARRAY (STRING), so
	// every reader can read it without a JSON extension. The text must be
	// valid JSON; use it for nested values that are not queried column-wise.
	JSON
)

var typeNames = map[Type]string{
	String: "string", Bool: "bool", Int64: "int64", Float64: "float64",
	Timestamp: "timestamp", Date: "date", JSON: "json",
}

// String returns the type's name as used in docs and error messages.
func (t Type) String() string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// Column describes one column of a published table.
type Column struct {
	Name        string // snake_case; the Parquet, CSV and SQL name
	Type        Type
	Nullable    bool   // null (unmeasured) allowed; Parquet OPTIONAL
	Description string // one or two sentences for datapackage.json and views
}

// Table is the definition of one published table. Definitions are shared
// values: treat them as read-only once built.
type Table struct {
	Name        string // file stem and view name: <name>.parquet, <name>.csv
	Title       string // short human title
	Description string
	Columns     []Column
	// Key names the columns that identify a row. Writers sort rows by the
	// key (ascending, column by column) and refuse duplicate keys, which is
	// what makes output bytes independent of input order. Key columns must
	// not be nullable.
	Key []string
}

// Row is one row of a table, the form stages hand rows over in:
// Row[i] belongs to Columns[i], nil is null (unmeasured).
//
// Accepted Go values per column type: String: string; JSON: string,
// json.RawMessage or []byte; Bool: bool; Int64: int64, int or int32;
// Float64: float64 or float32; Timestamp and Date: time.Time. A pointer to
// any of these is accepted too, a nil pointer being null. Rows read back
// hold the first (canonical) form of each: string, bool, int64, float64 and
// time.Time in UTC (microsecond precision; midnight for dates), so rows
// scanned from database/sql into []any fit as they are.
type Row = []any

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Validate checks the definition itself: names, types, unique columns and a
// non-empty key of non-nullable columns. Writers call it; call it in a test
// for every definition you add.
func (t *Table) Validate() error {
	_, err := t.keyIndexes()
	return err
}

// keyIndexes validates the definition and returns the positions of the key
// columns. It never mutates t, so one definition can be written from
// several goroutines at once.
func (t *Table) keyIndexes() ([]int, error) {
	idx, err := t.validate()
	if err != nil {
		return nil, fmt.Errorf("table %q: %w", t.Name, err)
	}
	return idx, nil
}

func (t *Table) validate() ([]int, error) {
	if !nameRE.MatchString(t.Name) {
		return nil, errors.New("name must be snake_case")
	}
	if t.Description == "" {
		return nil, errors.New("missing description")
	}
	if len(t.Columns) == 0 {
		return nil, errors.New("no columns")
	}
	seen := make(map[string]int, len(t.Columns))
	for i, c := range t.Columns {
		if !nameRE.MatchString(c.Name) {
			return nil, fmt.Errorf("column %q: name must be snake_case", c.Name)
		}
		if _, dup := seen[c.Name]; dup {
			return nil, fmt.Errorf("column %q: defined twice", c.Name)
		}
		seen[c.Name] = i
		if _, ok := typeNames[c.Type]; !ok {
			return nil, fmt.Errorf("column %q: unknown type %d", c.Name, int(c.Type))
		}
		if c.Description == "" {
			return nil, fmt.Errorf("column %q: missing description", c.Name)
		}
	}
	if len(t.Key) == 0 {
		return nil, errors.New("no key: rows need a key to be sorted deterministically")
	}
	keyIdx := make([]int, 0, len(t.Key))
	for _, k := range t.Key {
		i, ok := seen[k]
		if !ok {
			return nil, fmt.Errorf("key column %q: not a column", k)
		}
		if t.Columns[i].Nullable {
			return nil, fmt.Errorf("key column %q: must not be nullable", k)
		}
		if slices.Contains(keyIdx, i) {
			return nil, fmt.Errorf("key column %q: listed twice", k)
		}
		keyIdx = append(keyIdx, i)
	}
	return keyIdx, nil
}

// ColumnIndex returns the position of the named column, or -1.
func (t *Table) ColumnIndex(name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// ColumnNames returns the column names in published order.
func (t *Table) ColumnNames() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

package datasets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CSV text forms. Timestamps always carry six fraction digits and a Z.
const (
	csvTimestamp = "2006-01-02T15:04:05.000000Z"
	csvDate      = "2006-01-02"
)

// WriteCSV writes the rows of c as RFC 4180 CSV to w: a header row of
// column names, CRLF line ends, rows in key order (Sort runs first). A null
// is an empty unquoted field; an empty string is written as "" so the two
// stay apart for readers that care (ReadCSV does). Floats use the shortest
// text that reads back exactly, in the notation of JSON; timestamps are UTC
// with six fraction digits; dates are YYYY-MM-DD.
func WriteCSV(w io.Writer, c *Columns) error {
	if err := c.Sort(); err != nil {
		return fmt.Errorf("write csv %s: %w", c.table.Name, err)
	}
	if err := writeCSV(w, c); err != nil {
		return fmt.Errorf("write csv %s: %w", c.table.Name, err)
	}
	return nil
}

func writeCSV(w io.Writer, c *Columns) error {
	return writeCSVRows(w, c, csvHeader(c.table))
}

// csvHeader is the header row of t's CSV.
func csvHeader(t *Table) []byte {
	return []byte(strings.Join(t.ColumnNames(), ",") + "\r\n")
}

// writeCSVRows writes head, then the rows of c.
func writeCSVRows(w io.Writer, c *Columns, head []byte) error {
	// Rows are formatted straight into one buffer that is handed to w
	// whenever it fills, rather than through a bufio.Writer: one copy of
	// every byte fewer (a million stores are gigabytes of CSV).
	const flushAt = 1 << 18
	buf := make([]byte, 0, flushAt+flushAt/4)
	buf = append(buf, head...)
	for i := range c.n {
		for j := range c.vecs {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = c.appendCSV(buf, i, j)
		}
		buf = append(buf, '\r', '\n')
		if len(buf) >= flushAt {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

func (c *Columns) appendCSV(b []byte, i, j int) []byte {
	v := &c.vecs[j]
	if v.valid != nil && !v.valid[i] {
		return b
	}
	switch c.table.Columns[j].Type {
	case String, JSON:
		return appendCSVString(b, v.str[i])
	case Bool:
		return strconv.AppendBool(b, v.bln[i])
	case Int64:
		return strconv.AppendInt(b, v.num[i], 10)
	case Float64:
		return AppendFloat(b, v.flt[i])
	case Timestamp:
		return appendTimestamp(b, v.num[i])
	case Date:
		return appendDate(b, time.Unix(v.num[i]*86400, 0).UTC())
	}
	return b
}

// appendTimestamp writes µs since the epoch in the csvTimestamp layout
// without going through the layout parser (a million rows notice).
func appendTimestamp(b []byte, us int64) []byte {
	t := time.UnixMicro(us).UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return t.AppendFormat(b, csvTimestamp)
	}
	b = appendDate(b, t)
	hh, mm, ss := t.Clock()
	b = append(b, 'T')
	b = appendDigits(b, hh, 2)
	b = append(b, ':')
	b = appendDigits(b, mm, 2)
	b = append(b, ':')
	b = appendDigits(b, ss, 2)
	b = append(b, '.')
	b = appendDigits(b, t.Nanosecond()/1000, 6)
	return append(b, 'Z')
}

// appendDate writes t's date as YYYY-MM-DD.
func appendDate(b []byte, t time.Time) []byte {
	y, m, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, csvDate)
	}
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, int(m), 2)
	b = append(b, '-')
	return appendDigits(b, d, 2)
}

// appendDigits writes 0 <= n < 10^width zero-padded to width digits.
func appendDigits(b []byte, n, width int) []byte {
	start := len(b)
	for range width {
		b = append(b, 0)
	}
	for i := len(b) - 1; i >= start; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return b
}

// csvSpecial marks the bytes that force a field into quotes.
var csvSpecial = [256]bool{',': true, '"': true, '\r': true, '\n': true}

// appendCSVString writes s, quoted when it is empty (so that it is not
// read as null), holds a comma, quote or line break, or starts or ends
// with a space (which some readers trim).
func appendCSVString(b []byte, s string) []byte {
	if s != "" && s[0] != ' ' && s[len(s)-1] != ' ' && !csvNeedsQuotes(s) {
		return append(b, s...)
	}
	quotes := strings.Count(s, `"`)
	n := len(b) + len(s) + 2 + quotes
	b = slices.Grow(b, n-len(b))
	b = append(b, '"')
	if quotes*16 < len(s) {
		// Few quotes (a note that quotes a word): copy the runs between
		// them.
		for {
			i := strings.IndexByte(s, '"')
			if i < 0 {
				break
			}
			b = append(b, s[:i+1]...)
			b = append(b, '"')
			s = s[i+1:]
		}
		b = append(b, s...)
		return append(b, '"')
	}
	// Many (a JSON document: one in every few bytes): byte by byte into
	// the room made above, twice as fast as a search per quote.
	out := b[len(b):n]
	j := 0
	for i := 0; i < len(s); i++ {
		out[j] = s[i]
		j++
		if s[i] == '"' {
			out[j] = '"'
			j++
		}
	}
	out[j] = '"'
	return b[:n]
}

// csvNeedsQuotes reports whether s holds a comma, quote or line break. Long
// strings (JSON documents, notes) are searched with the vectorised
// IndexByte, short ones byte by byte.
func csvNeedsQuotes(s string) bool {
	if len(s) < 32 {
		for i := 0; i < len(s); i++ {
			if csvSpecial[s[i]] {
				return true
			}
		}
		return false
	}
	return strings.IndexByte(s, '"') >= 0 || strings.IndexByte(s, ',') >= 0 ||
		strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\r') >= 0
}

// AppendFloat appends f the way encoding/json writes a float64: the shortest
// text that parses back to f, in plain notation unless the exponent is below
// -6 or at least 21. CSV cells and precomputed JSON share it, so a number
// reads the same everywhere.
func AppendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// ReadCSV reads CSV written for t: the header must list t's columns in
// order. Rows keep the file order. An empty unquoted field is null (or ""
// in a String column that is not nullable); a quoted empty field is the
// empty string.
func ReadCSV(r io.Reader, t *Table) (*Columns, error) {
	c, err := readCSV(r, t)
	if err != nil {
		return nil, fmt.Errorf("read csv %s: %w", t.Name, err)
	}
	return c, nil
}

func readCSV(r io.Reader, t *Table) (*Columns, error) {
	c, err := NewColumns(t, 0)
	if err != nil {
		return nil, err
	}
	cr := &csvReader{r: bufio.NewReaderSize(r, 1<<16)}
	header, err := cr.record(nil)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty file: no header row")
		}
		return nil, err
	}
	names := t.ColumnNames()
	if len(header) != len(names) {
		return nil, fmt.Errorf("header has %d columns, table has %d", len(header), len(names))
	}
	for i, h := range header {
		if h.text != names[i] {
			return nil, fmt.Errorf("header column %d is %q, want %q", i, h.text, names[i])
		}
	}
	var fields []csvField
	for {
		line := cr.line
		fields, err = cr.record(fields[:0])
		if errors.Is(err, io.EOF) {
			c.sorted = c.n <= 1
			return c, nil
		}
		if err != nil {
			return nil, err
		}
		if len(fields) != len(names) {
			return nil, fmt.Errorf("line %d: %d fields, want %d", line, len(fields), len(names))
		}
		c.grow(1)
		for j, f := range fields {
			v, err := parseCSV(&t.Columns[j], f)
			if err == nil {
				err = c.set(c.n-1, j, v)
			}
			if err != nil {
				return nil, fmt.Errorf("line %d column %s: %w", line, t.Columns[j].Name, err)
			}
		}
	}
}

// parseCSV turns one field into a value for Columns.set.
func parseCSV(c *Column, f csvField) (any, error) {
	if f.text == "" {
		switch {
		case c.Type == String && (f.quoted || !c.Nullable):
			return "", nil
		case c.Nullable:
			return nil, nil
		}
		return nil, errors.New("empty field in a column that is not nullable")
	}
	switch c.Type {
	case String, JSON:
		return f.text, nil // Columns.set checks JSON
	case Bool:
		switch f.text {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("bool %q: want true or false", f.text)
	case Int64:
		return strconv.ParseInt(f.text, 10, 64)
	case Float64:
		return strconv.ParseFloat(f.text, 64) // Columns.set refuses NaN and Inf
	case Timestamp:
		return time.Parse(time.RFC3339Nano, f.text)
	case Date:
		return time.Parse(csvDate, f.text)
	}
	return nil, fmt.Errorf("unknown type %v", c.Type)
}

type csvField struct {
	text   string
	quoted bool
}

// csvReader parses RFC 4180 records, keeping whether each field was quoted
// (encoding/csv loses that, and with it the null / empty-string line). It
// accepts CRLF or LF line ends and refuses stray quotes.
type csvReader struct {
	r    *bufio.Reader
	line int // 1-based line of the next record
	buf  bytes.Buffer
}

func (cr *csvReader) record(fields []csvField) ([]csvField, error) {
	if cr.line == 0 {
		cr.line = 1
	}
	start := cr.line
	if _, err := cr.r.Peek(1); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, err
	}
	for {
		f, end, err := cr.field()
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", start, err)
		}
		fields = append(fields, f)
		if end {
			return fields, nil
		}
	}
}

// field reads one field and its separator; end reports the end of the record.
func (cr *csvReader) field() (f csvField, end bool, err error) {
	cr.buf.Reset()
	b, err := cr.r.ReadByte()
	if errors.Is(err, io.EOF) {
		return f, true, nil
	}
	if err != nil {
		return f, false, err
	}
	if b == '"' {
		f.quoted = true
		for {
			b, err := cr.r.ReadByte()
			if err != nil {
				if errors.Is(err, io.EOF) {
					return f, false, errors.New("unterminated quoted field")
				}
				return f, false, err
			}
			if b == '\n' {
				cr.line++
			}
			if b != '"' {
				cr.buf.WriteByte(b)
				continue
			}
			next, err := cr.r.ReadByte()
			if errors.Is(err, io.EOF) {
				f.text = cr.buf.String()
				return f, true, nil
			}
			if err != nil {
				return f, false, err
			}
			if next == '"' {
				cr.buf.WriteByte('"')
				continue
			}
			f.text = cr.buf.String()
			end, err := cr.separator(next)
			return f, end, err
		}
	}
	for {
		switch b {
		case ',', '\r', '\n':
			f.text = cr.buf.String()
			end, err := cr.separator(b)
			return f, end, err
		case '"':
			return f, false, errors.New(`bare " in unquoted field`)
		}
		cr.buf.WriteByte(b)
		b, err = cr.r.ReadByte()
		if errors.Is(err, io.EOF) {
			f.text = cr.buf.String()
			return f, true, nil
		}
		if err != nil {
			return f, false, err
		}
	}
}

// separator consumes what follows a field: a comma, or a line end.
func (cr *csvReader) separator(b byte) (end bool, err error) {
	switch b {
	case ',':
		return false, nil
	case '\n':
		cr.line++
		return true, nil
	case '\r':
		n, err := cr.r.ReadByte()
		if err == nil && n == '\n' {
			cr.line++
			return true, nil
		}
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		return false, errors.New(`\r not followed by \n`)
	}
	return false, fmt.Errorf("unexpected %q after quoted field", b)
}

package readlayer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/parquet-go/parquet-go"

	"svc/datasets"
)

// loadRows builds the lookup records of a version folder: it streams the
// lookup columns of every source table (and only those: Parquet is
// columnar, so result_json and the JSON documents are never decoded), one
// goroutine per table, merges the tables by host, which every writer sorts
// them by, and compresses the records into a rowStore. Memory is a few
// batches of rows per table plus the store being built. store_answers
// decides which hosts exist; a missing optional table leaves its fields
// null.
func loadRows(ctx context.Context, dir string) (*rowStore, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var cursors []*tableCursor
	defer func() {
		for _, c := range cursors {
			c.close()
		}
	}()
	for i, src := range fieldSources {
		c, err := openCursor(ctx, dir, src)
		if errors.Is(err, os.ErrNotExist) && i > 0 {
			continue
		}
		if err != nil {
			return nil, err
		}
		cursors = append(cursors, c)
	}
	driver := cursors[0]
	codec := newRowCodec()
	b := newRowStoreBuilder(codec)
	finished := false
	defer func() {
		if !finished {
			b.abort()
		}
	}()
	var rec []byte
	row := NewRow("") // one row, reused: a million rows are a lot of garbage
	for {
		cr, err := driver.next()
		if err != nil {
			return nil, err
		}
		if cr == nil {
			break
		}
		row.host = cr.host
		clear(row.vals)
		driver.fill(row, cr)
		for _, c := range cursors[1:] {
			if err := c.joinInto(row); err != nil {
				return nil, err
			}
		}
		rec = codec.encode(rec[:0], row)
		if err := b.add(cr.host, rec); err != nil {
			return nil, fmt.Errorf("%s: %w", driver.name, err)
		}
	}
	codec.freeze()
	finished = true
	return b.finish()
}

// tableCursor reads one table's lookup columns in file order. A goroutine
// decodes batches of rows into cursorRows (copies: nothing points into
// Parquet pages) while the merge consumes the previous batch.
type tableCursor struct {
	name    string
	src     fieldSource
	f       *datasets.ParquetFile
	cols    []cursorCol
	batches chan cursorBatch
	free    chan cursorBatch // batches read, back for reuse
	cancel  context.CancelFunc
	done    chan struct{}

	cur     []cursorRow
	pos     int
	last    string
	started bool
}

type cursorCol struct {
	col   int // position in the projected row
	field int
	typ   datasets.Type
}

// cursorRow is one decoded row: the host, its row number in the file and
// the values of cols.
type cursorRow struct {
	host  string
	index int64
	vals  []rowValue
}

type cursorBatch struct {
	rows []cursorRow
	err  error // io.EOF at the end
}

// cursorBatchRows is the rows of one batch; a cursor has at most three
// batches alive (one read, one queued, one being decoded).
const cursorBatchRows = 256

// openCursor opens dir/<table>.parquet projected onto the host column and
// the columns src maps to fields, and starts decoding it.
func openCursor(ctx context.Context, dir string, src fieldSource) (*tableCursor, error) {
	name := src.table.Name
	wanted := []string{"host"}
	for c := range src.cols {
		wanted = append(wanted, c)
	}
	// A column a snapshot published before it existed is read as null
	// (unmeasured there); only the host column is required.
	file, missing, err := datasets.OpenParquetPresentColumns(dir, src.table, wanted)
	if err != nil {
		return nil, err
	}
	if slices.Contains(missing, "host") {
		file.Close()
		return nil, fmt.Errorf("read %s: no column host", name)
	}
	pf, schema := file.File(), file.Schema()
	ctx, cancel := context.WithCancel(ctx)
	cur := &tableCursor{name: name, src: src, f: file, batches: make(chan cursorBatch, 1), free: make(chan cursorBatch, 2),
		cancel: cancel, done: make(chan struct{})}
	hostCol := 0
	for i, path := range schema.Columns() {
		c := path[0]
		if c == "host" {
			hostCol = i
			continue
		}
		col := src.table.Columns[src.table.ColumnIndex(c)]
		cur.cols = append(cur.cols, cursorCol{col: i, field: field(src.cols[c]), typ: col.Type})
	}
	r := parquet.NewGenericReader[any](pf, schema)
	go cur.decode(ctx, r, hostCol)
	return cur, nil
}

// decode reads the table and sends it on in batches until the end, an
// error or cancellation. The text of a batch is copied into one string
// that its values are slices of: one allocation per batch instead of one
// per value, which keeps the garbage of a million-store load, and so the
// heap while it runs, small. Whatever outlives the batch (block keys,
// dictionary entries) is cloned by its keeper.
func (c *tableCursor) decode(ctx context.Context, r *parquet.GenericReader[any], hostCol int) {
	defer close(c.done)
	defer r.Close()
	buf := make([]parquet.Row, cursorBatchRows)
	var text []byte
	type span struct{ row, col, off, n int } // col -1 is the host
	var spans []span
	var index int64
	for {
		n, err := r.ReadRows(buf)
		var rows []cursorRow
		select {
		case b := <-c.free:
			rows = b.rows[:n]
		default:
			rows = make([]cursorRow, n, cursorBatchRows)
		}
		if n > 0 && len(rows[0].vals) == 0 {
			vals := make([]rowValue, cursorBatchRows*len(c.cols))
			for k := range rows[:cap(rows)] {
				rows[:cap(rows)][k].vals = vals[k*len(c.cols) : (k+1)*len(c.cols)]
			}
		}
		text, spans = text[:0], spans[:0]
		for k, pr := range buf[:n] {
			clear(rows[k].vals)
			rows[k].index = index
			index++
			h := pr[hostCol].ByteArray()
			spans = append(spans, span{k, -1, len(text), len(h)})
			text = append(text, h...)
			for j, cc := range c.cols {
				v := pr[cc.col]
				if (cc.typ == datasets.String || cc.typ == datasets.JSON) && !v.IsNull() {
					b := v.ByteArray()
					spans = append(spans, span{k, j, len(text), len(b)})
					text = append(text, b...)
					rows[k].vals[j].ok = true
					continue
				}
				rows[k].vals[j] = parquetValue(v, cc.typ)
			}
		}
		all := string(text)
		for _, sp := range spans {
			if sp.col < 0 {
				rows[sp.row].host = all[sp.off : sp.off+sp.n]
			} else {
				rows[sp.row].vals[sp.col].s = all[sp.off : sp.off+sp.n]
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			err = fmt.Errorf("read %s: %w", c.name, err)
		}
		if n == 0 && err == nil {
			err = fmt.Errorf("read %s: no rows and no end", c.name)
		}
		select {
		case c.batches <- cursorBatch{rows, err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

func parquetValue(v parquet.Value, typ datasets.Type) rowValue {
	if v.IsNull() {
		return rowValue{}
	}
	switch typ {
	case datasets.String, datasets.JSON:
		return rowValue{ok: true, s: string(v.ByteArray())}
	case datasets.Bool:
		if v.Boolean() {
			return rowValue{ok: true, n: 1}
		}
		return rowValue{ok: true}
	case datasets.Int64, datasets.Timestamp:
		return rowValue{ok: true, n: v.Int64()}
	case datasets.Date:
		return rowValue{ok: true, n: int64(v.Int32()) * 86400 * 1e6}
	}
	return rowValue{}
}

func (c *tableCursor) close() {
	c.cancel()
	<-c.done
	c.f.Close()
}

// peek returns the current row without consuming it; nil at the end.
func (c *tableCursor) peek() (*cursorRow, error) {
	for c.pos == len(c.cur) {
		if c.batches == nil {
			return nil, nil
		}
		if c.cur != nil {
			select {
			case c.free <- cursorBatch{rows: c.cur}:
			default:
			}
			c.cur = nil
		}
		b := <-c.batches
		c.cur, c.pos = b.rows, 0
		if b.err != nil {
			c.batches = nil
			if !errors.Is(b.err, io.EOF) {
				return nil, b.err
			}
		}
	}
	cr := &c.cur[c.pos]
	if c.started && (cr.host < c.last || cr.host == c.last && !c.src.multi) {
		return nil, fmt.Errorf("read %s: host %q after %q: the table is not sorted by host, each once", c.name, cr.host, c.last)
	}
	return cr, nil
}

// next consumes and returns the current row; nil at the end.
func (c *tableCursor) next() (*cursorRow, error) {
	cr, err := c.peek()
	if cr != nil {
		c.last, c.started = cr.host, true
		c.pos++
	}
	return cr, err
}

// fill copies a row's values into the fields they map to, and its row
// number when the source keeps it.
func (c *tableCursor) fill(row *Row, cr *cursorRow) {
	for j, cc := range c.cols {
		row.vals[cc.field] = cr.vals[j]
	}
	if c.src.rowField != "" {
		row.vals[fieldIndex[c.src.rowField]] = rowValue{ok: true, n: cr.index}
	}
}

// joinInto skips rows of hosts before row.host and fills row from the row
// (the rows, for a multi source) of row.host when there is one.
func (c *tableCursor) joinInto(row *Row) error {
	var count int64
	defer func() {
		if c.src.countField != "" && count > 0 {
			row.vals[fieldIndex[c.src.countField]] = rowValue{ok: true, n: count}
		}
	}()
	for {
		cr, err := c.peek()
		if err != nil || cr == nil {
			return err
		}
		if cr.host > row.host {
			return nil
		}
		c.next()
		if cr.host == row.host {
			if count == 0 {
				c.fill(row, cr)
			}
			count++
			if !c.src.multi {
				return nil
			}
		}
	}
}

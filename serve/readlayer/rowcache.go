package readlayer

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sort"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/snappy"
)

// A rowCache holds the rows of one table's projected columns, copied when
// the snapshot loads into small snappy blocks of a scratch file, in file
// order. A read of rows at a host's row number decompresses one block of
// about rowCacheBlock bytes (two when the rows straddle blocks), where the
// Parquet file made it decompress a page of up to 256 KiB per column: at a
// million stores that was a millisecond of CPU a read and a p99 of 12 to
// 17 ms (issue 22). Only the block offsets stay in memory (16 bytes a
// block); the blocks stay on disk, read with pread, so they are page
// cache and never the server's RSS. The file is removed as soon as it is
// created: it lives as long as the open descriptor, and a crash leaves
// nothing behind.
//
// A published snapshot never changes, so the copy is the snapshot's own
// rows, decoded by the same Parquet reader as before: a read answers the
// same values either way (TestRowCacheMatchesParquet).
type rowCache struct {
	name  string
	f     *os.File
	first []int64 // first row of each block, ascending; first[0] == 0
	off   []int64 // offset of each block in f, and the end of the last
	kinds []parquet.Kind
	cols  []int // while building: the file column of each coded column
	rows  int64
	bufs  sync.Pool // *[]byte: compressed and raw block buffers
}

var errCorruptBlock = errors.New("corrupt row cache block")

// rowCacheBlock is the raw size at which a block is cut: a read
// decompresses about this much.
const rowCacheBlock = 8 << 10

// rowCacheBatch is the rows decoded from Parquet at a time.
const rowCacheBatch = 256

// rowCacheCodec compresses the blocks: snappy (klauspost's, through
// parquet-go), whose decoding measured 2 to 8 times faster than zstd's
// fastest level on these blocks, for files about a third larger.
var rowCacheCodec compress.Codec = &snappy.Codec{}

// buildRowCache copies every row of p's columns into a new rowCache in a
// scratch file under tmpDir ("" for the system's).
func buildRowCache(ctx context.Context, p *parquetRows, tmpDir string) (_ *rowCache, err error) {
	f, err := os.CreateTemp(tmpDir, "svc-rows-"+p.name+"-*")
	if err != nil {
		return nil, fmt.Errorf("row cache %s: %w", p.name, err)
	}
	// Unlinked at once: the blocks live as long as the descriptor. Where
	// an open file cannot be removed, close removes it.
	removed := os.Remove(f.Name()) == nil
	c := &rowCache{name: p.name, f: f, rows: p.pf.NumRows()}
	defer func() {
		if err != nil {
			c.close()
			if !removed {
				os.Remove(f.Name())
			}
		}
	}()
	if !removed {
		return nil, fmt.Errorf("row cache %s: cannot remove an open scratch file here", p.name)
	}
	// The rows are read in the file's own schema (a projection would
	// convert every row, a third of the decoding) and coded in the
	// projection's column order, which reads expect.
	for _, col := range p.schema.Columns() {
		leaf, ok := p.pf.Schema().Lookup(col...)
		if !ok {
			return nil, fmt.Errorf("row cache %s: no column %v", p.name, col)
		}
		c.kinds = append(c.kinds, leaf.Node.Type().Kind())
		c.cols = append(c.cols, leaf.ColumnIndex)
	}
	if err := c.fill(ctx, p); err != nil {
		return nil, fmt.Errorf("row cache %s: %w", p.name, err)
	}
	return c, nil
}

// rawBlock is one block on its way to the file.
type rawBlock = block[int64]

// fill decodes the Parquet file in order on this goroutine, compresses the
// blocks on every CPU and writes them in order.
func (c *rowCache) fill(ctx context.Context, p *parquetRows) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := max(runtime.GOMAXPROCS(0), 1)
	jobs := make(chan rawBlock, 2*workers)
	results := make(chan rawBlock, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var out []byte
			for j := range jobs {
				if j.err == nil {
					out, j.err = rowCacheCodec.Encode(out, j.data)
					j.data = append(j.data[:0], out...)
				}
				results <- j
			}
		})
	}
	done := make(chan error, 1)
	go func() { done <- c.commit(results) }()

	r := parquet.NewGenericReader[any](p.pf)
	buf := make([]parquet.Row, rowCacheBatch)
	var block []byte
	var blockFirst, row int64
	nblocks := 0
	var rerr error
	flush := func() bool {
		if len(block) == 0 {
			return true
		}
		select {
		case jobs <- rawBlock{idx: nblocks, first: blockFirst, data: block}:
		case <-ctx.Done():
			return false
		}
		nblocks++
		block = make([]byte, 0, rowCacheBlock+rowCacheBlock/4)
		blockFirst = row
		return true
	}
	block = make([]byte, 0, rowCacheBlock+rowCacheBlock/4)
read:
	for {
		if rerr = ctx.Err(); rerr != nil {
			break
		}
		n, err := r.ReadRows(buf)
		for _, pr := range buf[:n] {
			if block, rerr = c.appendRow(block, pr); rerr != nil {
				break read
			}
			row++
			if len(block) >= rowCacheBlock && !flush() {
				break read
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rerr = err
			break
		}
		if n == 0 {
			rerr = errors.New("no rows and no end")
			break
		}
	}
	r.Close()
	if rerr == nil && !flush() {
		rerr = ctx.Err()
	}
	close(jobs)
	wg.Wait()
	close(results)
	if err := <-done; rerr == nil {
		rerr = err
	}
	if rerr == nil && row != c.rows {
		rerr = fmt.Errorf("read %d rows of %d", row, c.rows)
	}
	return rerr
}

// commit writes compressed blocks to the file in block order.
func (c *rowCache) commit(results <-chan rawBlock) error {
	w := bufio.NewWriterSize(c.f, 1<<20)
	var off int64
	err := inBlockOrder(results, func(j rawBlock) error {
		if _, err := w.Write(j.data); err != nil {
			return err
		}
		c.first = append(c.first, j.first)
		c.off = append(c.off, off)
		off += int64(len(j.data))
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	c.off = append(c.off, off)
	c.first = append([]int64(nil), c.first...)
	c.off = append([]int64(nil), c.off...)
	return err
}

// appendRow codes one row of the file (every column, in file order)
// onto b: per coded column a null byte (0 null, 1 a value),
// then the value.
func (c *rowCache) appendRow(b []byte, row parquet.Row) ([]byte, error) {
	for j, fc := range c.cols {
		if fc >= len(row) {
			return b, fmt.Errorf("a row of %d values, no column %d", len(row), fc)
		}
		v := row[fc]
		if v.IsNull() {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		switch c.kinds[j] {
		case parquet.Boolean:
			if v.Boolean() {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case parquet.Int32:
			b = binary.AppendVarint(b, int64(v.Int32()))
		case parquet.Int64:
			b = binary.AppendVarint(b, v.Int64())
		case parquet.Float:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v.Float()))
		case parquet.Double:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Double()))
		case parquet.ByteArray, parquet.FixedLenByteArray:
			s := v.ByteArray()
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		default:
			return b, fmt.Errorf("column %d: no row cache coding for %s", j, c.kinds[j])
		}
	}
	return b, nil
}

// decodeRow reads one row coded by appendRow into row (reused), whose
// byte arrays point into b.
func (c *rowCache) decodeRow(b []byte, row parquet.Row) (parquet.Row, []byte, error) {
	row = row[:0]
	bad := errCorruptBlock
	for j, k := range c.kinds {
		if len(b) == 0 {
			return nil, nil, bad
		}
		present := b[0]
		b = b[1:]
		if present == 0 {
			row = append(row, parquet.NullValue().Level(0, 0, j))
			continue
		}
		var v parquet.Value
		switch k {
		case parquet.Boolean:
			if len(b) < 1 {
				return nil, nil, bad
			}
			v, b = parquet.BooleanValue(b[0] != 0), b[1:]
		case parquet.Int32, parquet.Int64:
			x, n := binary.Varint(b)
			if n <= 0 {
				return nil, nil, bad
			}
			if k == parquet.Int32 {
				v = parquet.Int32Value(int32(x))
			} else {
				v = parquet.Int64Value(x)
			}
			b = b[n:]
		case parquet.Float:
			if len(b) < 4 {
				return nil, nil, bad
			}
			v, b = parquet.FloatValue(math.Float32frombits(binary.LittleEndian.Uint32(b))), b[4:]
		case parquet.Double:
			if len(b) < 8 {
				return nil, nil, bad
			}
			v, b = parquet.DoubleValue(math.Float64frombits(binary.LittleEndian.Uint64(b))), b[8:]
		default:
			s, rest, ok := readChunk(b)
			if !ok {
				return nil, nil, bad
			}
			if k == parquet.FixedLenByteArray {
				v = parquet.FixedLenByteArrayValue(s)
			} else {
				v = parquet.ByteArrayValue(s)
			}
			b = rest
		}
		row = append(row, v.Level(0, 1, j))
	}
	return row, b, nil
}

// read calls fn with rows start to start+n-1, as parquetRows.read does; a
// row is only valid during the call.
func (c *rowCache) read(start int64, n int, fn func(parquet.Row) error) error {
	if start < 0 || n <= 0 || start+int64(n) > c.rows {
		return fmt.Errorf("read %s: rows %d+%d out of %d", c.name, start, n, c.rows)
	}
	// The last block whose first row is <= start.
	i := sort.Search(len(c.first), func(i int) bool { return c.first[i] > start }) - 1
	zp, rp := c.buf(), c.buf()
	defer c.bufs.Put(zp)
	defer c.bufs.Put(rp)
	var row parquet.Row
	at, end := start, start+int64(n)
	for ; at < end; i++ {
		if i < 0 || i >= len(c.first) {
			return fmt.Errorf("read %s: row %d is in no block", c.name, at)
		}
		size := c.off[i+1] - c.off[i]
		z := append((*zp)[:0], make([]byte, size)...)
		*zp = z
		if _, err := c.f.ReadAt(z, c.off[i]); err != nil {
			return fmt.Errorf("read %s: block %d: %w", c.name, i, err)
		}
		raw, err := rowCacheCodec.Decode((*rp)[:0], z)
		if err != nil {
			return fmt.Errorf("read %s: block %d: %w", c.name, i, err)
		}
		*rp = raw
		for r := c.first[i]; len(raw) > 0 && at < end; r++ {
			if row, raw, err = c.decodeRow(raw, row); err != nil {
				return fmt.Errorf("read %s: block %d: %w", c.name, i, err)
			}
			if r < at {
				continue
			}
			if err := fn(row); err != nil {
				return err
			}
			at++
		}
	}
	return nil
}

func (c *rowCache) buf() *[]byte {
	if b, ok := c.bufs.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, 2*rowCacheBlock)
	return &b
}

// memBytes is the memory the cache holds: its block index.
func (c *rowCache) memBytes() int64 { return int64(16 * len(c.first)) }

// diskBytes is the size of the scratch file.
func (c *rowCache) diskBytes() int64 {
	if len(c.off) == 0 {
		return 0
	}
	return c.off[len(c.off)-1]
}

func (c *rowCache) close() { c.f.Close() }

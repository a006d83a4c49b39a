package readlayer

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// A rowStore holds one encoded record per host, sorted by host, in
// deflate-compressed blocks of rowsPerBlock records. A lookup is a binary
// search over the first host of each block, one block inflated and a short
// scan: ten to twenty microseconds, where a DuckDB point lookup of the same
// columns measured 0.6 to 1.3 ms (p99 up to 6 ms) on a million stores.
// Compression keeps a million stores' lookup columns in tens of
// megabytes; a preset dictionary taken from the first records lets even a
// small block refer back to the enum-like strings every record repeats.
type rowStore struct {
	codec     *rowCodec
	firstHost []string // first host of each block
	blocks    []blockRef
	chunks    [][]byte // compressed blocks, packed into chunks of chunkSize
	dict      []byte
	n         int
	rawBytes  int64
	readers   sync.Pool // flate readers, reset per block
}

// blockRef locates one compressed block: chunks[chunk][off:off+size].
type blockRef struct {
	chunk, off, size uint32
}

// chunkSize is the allocation unit of compressed blocks: the store grows
// by chunks instead of doubling one slice, so building it never holds two
// copies of the data.
const chunkSize = 4 << 20

const (
	// rowsPerBlock: a lookup inflates one block, and inflating costs
	// mostly per block (the Huffman tables) until blocks are small. On a
	// million synthetic stores, 32 records a block took 26 µs of CPU a
	// lookup in 52 MB, 16 took 16 µs in 56 MB, 8 took 9 µs in 63 MB
	// (issue 22); 16 keeps two snapshots' records, while a new one loads
	// beside the old, well inside the server's 300 MB.
	rowsPerBlock = 16
	// dictSample is how much of the first records becomes the preset
	// dictionary (deflate looks back at most 32 KiB).
	dictSample = 8 << 10
	// dictRows bounds the records collected before the dictionary is cut.
	dictRows = 512
)

// rowStoreBuilder builds a rowStore from records added in ascending host
// order. Full blocks are compressed on every CPU and committed in order.
type rowStoreBuilder struct {
	s       *rowStore
	pending []pendingRow // records before the dictionary exists
	block   bytes.Buffer // uncompressed records of the current block
	inBlock int
	first   string
	last    string
	err     error

	started bool
	nblocks int
	jobs    chan blockJob
	workers sync.WaitGroup
	results chan blockJob
	commit  chan error // the committer's verdict, once results is closed
}

type pendingRow struct {
	host string
	rec  []byte
}

// blockJob is one block on its way through compression.
type blockJob = block[string]

// block is one block of rows on its way from the reader through the
// compressing workers to the committer: its place in order, the key of
// its first row, its bytes (raw, then compressed) and a worker's error.
type block[K any] struct {
	idx   int
	first K
	data  []byte
	err   error
}

// inBlockOrder hands the blocks the workers send, out of order, to keep in
// block order. From the first error, a block's or keep's, the rest are
// drained unkept and that error is returned.
func inBlockOrder[K any](results <-chan block[K], keep func(block[K]) error) error {
	waiting := map[int]block[K]{}
	next := 0
	var err error
	for j := range results {
		waiting[j.idx] = j
		for {
			j, ok := waiting[next]
			if !ok {
				break
			}
			delete(waiting, next)
			next++
			if err == nil {
				err = j.err
			}
			if err == nil {
				err = keep(j)
			}
		}
	}
	return err
}

func newRowStoreBuilder(codec *rowCodec) *rowStoreBuilder {
	return &rowStoreBuilder{s: &rowStore{codec: codec}}
}

// add appends host's record; hosts must come in strictly ascending order.
func (b *rowStoreBuilder) add(host string, rec []byte) error {
	if b.err != nil {
		return b.err
	}
	if b.s.n > 0 && host <= b.last {
		b.err = fmt.Errorf("row store: host %q after %q: rows must be sorted by host, each once", host, b.last)
		return b.err
	}
	b.last = host
	b.s.n++
	b.s.rawBytes += int64(len(host) + len(rec))
	if !b.started {
		b.pending = append(b.pending, pendingRow{strings.Clone(host), bytes.Clone(rec)})
		if len(b.pending) >= dictRows {
			b.start()
		}
		return b.err
	}
	b.put(host, rec)
	return b.err
}

// start cuts the dictionary from the pending records, starts the
// compressors and hands them the pending records.
func (b *rowStoreBuilder) start() {
	b.started = true
	var d bytes.Buffer
	for _, p := range b.pending {
		appendRecord(&d, p.host, p.rec)
	}
	dict := d.Bytes()
	if len(dict) > dictSample {
		dict = dict[len(dict)-dictSample:]
	}
	b.s.dict = bytes.Clone(dict)
	workers := max(runtime.GOMAXPROCS(0), 1)
	b.jobs = make(chan blockJob, 2*workers)
	b.results = make(chan blockJob, 2*workers)
	b.commit = make(chan error, 1)
	for range workers {
		b.workers.Go(b.compress)
	}
	go b.committer()
	pending := b.pending
	b.pending = nil
	for _, p := range pending {
		b.put(p.host, p.rec)
	}
}

// compress is one compressing worker.
func (b *rowStoreBuilder) compress() {
	var out bytes.Buffer
	zw, err := flate.NewWriterDict(&out, flate.DefaultCompression, b.s.dict)
	for j := range b.jobs {
		if err == nil {
			out.Reset()
			zw.Reset(&out)
			if _, err = zw.Write(j.data); err == nil {
				err = zw.Close()
			}
		}
		j.data, j.err = bytes.Clone(out.Bytes()), err
		b.results <- j
	}
}

// committer appends compressed blocks to the store in block order.
func (b *rowStoreBuilder) committer() {
	s := b.s
	err := inBlockOrder(b.results, func(j blockJob) error {
		size := len(j.data)
		if k := len(s.chunks) - 1; k < 0 || len(s.chunks[k])+size > cap(s.chunks[k]) {
			s.chunks = append(s.chunks, allocChunk(max(chunkSize, size)))
		}
		k := len(s.chunks) - 1
		s.blocks = append(s.blocks, blockRef{chunk: uint32(k), off: uint32(len(s.chunks[k])), size: uint32(size)})
		s.chunks[k] = append(s.chunks[k], j.data...)
		s.firstHost = append(s.firstHost, j.first)
		return nil
	})
	b.commit <- err
}

func (b *rowStoreBuilder) put(host string, rec []byte) {
	if b.inBlock == 0 {
		b.first = host
	}
	appendRecord(&b.block, host, rec)
	b.inBlock++
	if b.inBlock == rowsPerBlock {
		b.flush()
	}
}

// flush hands the current block to the compressors.
func (b *rowStoreBuilder) flush() {
	if b.inBlock == 0 {
		return
	}
	b.jobs <- blockJob{idx: b.nblocks, first: strings.Clone(b.first), data: bytes.Clone(b.block.Bytes())}
	b.nblocks++
	b.block.Reset()
	b.inBlock = 0
}

// finish returns the store; the builder must not be used afterwards.
func (b *rowStoreBuilder) finish() (*rowStore, error) {
	if !b.started {
		b.start()
	}
	b.flush()
	close(b.jobs)
	b.workers.Wait()
	close(b.results)
	if err := <-b.commit; err != nil {
		b.s.free()
		return nil, fmt.Errorf("row store: %w", err)
	}
	if b.err != nil {
		b.s.free()
		return nil, b.err
	}
	s := b.s
	// Give back the slack of the last chunk and of append's doubling.
	if k := len(s.chunks) - 1; k >= 0 && len(s.chunks[k]) > 0 {
		last := append(allocChunk(len(s.chunks[k])), s.chunks[k]...)
		freeChunk(s.chunks[k])
		s.chunks[k] = last
	}
	s.blocks = append([]blockRef(nil), s.blocks...)
	s.firstHost = append([]string(nil), s.firstHost...)
	return s, nil
}

// abort stops the compressors of a builder that will not finish and
// frees what it built.
func (b *rowStoreBuilder) abort() {
	if b.started {
		close(b.jobs)
		b.workers.Wait()
		close(b.results)
		<-b.commit
	}
	b.s.free()
}

// free releases the store's memory. It must not be read afterwards: the
// read layer frees it when its last reference is released.
func (s *rowStore) free() {
	for _, c := range s.chunks {
		freeChunk(c)
	}
	s.chunks, s.blocks, s.firstHost, s.n = nil, nil, nil, 0
}

func appendRecord(buf *bytes.Buffer, host string, rec []byte) {
	var tmp [binary.MaxVarintLen64]byte
	buf.Write(tmp[:binary.PutUvarint(tmp[:], uint64(len(host)))])
	buf.WriteString(host)
	buf.Write(tmp[:binary.PutUvarint(tmp[:], uint64(len(rec)))])
	buf.Write(rec)
}

// Len returns the number of hosts.
func (s *rowStore) Len() int { return s.n }

// memBytes is the memory the store holds, roughly.
func (s *rowStore) memBytes() int64 {
	n := int64(len(s.dict) + 12*len(s.blocks))
	for _, c := range s.chunks {
		n += int64(cap(c))
	}
	// firstHost strings are counted below.
	for _, h := range s.firstHost {
		n += int64(len(h)) + 16
	}
	return n
}

// has reports whether host is in the store.
func (s *rowStore) has(host string) (bool, error) {
	ok := false
	err := s.find(host, func([]byte) error { ok = true; return nil })
	return ok, err
}

// find calls fn with host's record when the host is there. The record is
// only valid during the call: it lives in a pooled buffer.
func (s *rowStore) find(host string, fn func(rec []byte) error) error {
	if s == nil || s.n == 0 {
		return nil
	}
	// The last block whose first host is <= host.
	i := sort.Search(len(s.firstHost), func(i int) bool { return s.firstHost[i] > host }) - 1
	if i < 0 {
		return nil
	}
	buf := blockBufs.Get().(*bytes.Buffer)
	defer blockBufs.Put(buf)
	if err := s.inflate(i, buf); err != nil {
		return err
	}
	key := []byte(host)
	return records(buf.Bytes(), func(h, rec []byte) (bool, error) {
		switch c := bytes.Compare(h, key); {
		case c == 0:
			return true, fn(rec)
		case c > 0:
			return true, nil
		}
		return false, nil
	})
}

// records calls fn with each host and record of an inflated block, in
// order, until fn says stop or fails.
func records(block []byte, fn func(host, rec []byte) (stop bool, err error)) error {
	for len(block) > 0 {
		h, rest, ok := readChunk(block)
		if !ok {
			return errors.New("row store: corrupt block")
		}
		rec, rest, ok := readChunk(rest)
		if !ok {
			return errors.New("row store: corrupt block")
		}
		if stop, err := fn(h, rec); stop || err != nil {
			return err
		}
		block = rest
	}
	return nil
}

// blockBufs are the buffers blocks are inflated into.
var blockBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// lookup returns host's decoded row, or false when the host is not there.
func (s *rowStore) lookup(host string) (*Row, bool, error) {
	var r *Row
	err := s.find(host, func(rec []byte) error {
		var err error
		r, err = s.codec.decode(host, rec)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("row store %s: %w", host, err)
	}
	return r, r != nil, nil
}

// each calls fn for every host in order, stopping at the first error.
// rec is only valid during the call.
func (s *rowStore) each(fn func(host string, rec []byte) error) error {
	var buf bytes.Buffer
	for i := range s.firstHost {
		buf.Reset()
		if err := s.inflate(i, &buf); err != nil {
			return err
		}
		err := records(buf.Bytes(), func(h, rec []byte) (bool, error) { return false, fn(string(h), rec) })
		if err != nil {
			return err
		}
	}
	return nil
}

// inflate decompresses block i into buf.
func (s *rowStore) inflate(i int, buf *bytes.Buffer) error {
	ref := s.blocks[i]
	src := bytes.NewReader(s.chunks[ref.chunk][ref.off : ref.off+ref.size])
	var zr io.ReadCloser
	if v := s.readers.Get(); v != nil {
		zr = v.(io.ReadCloser)
		if err := zr.(flate.Resetter).Reset(src, s.dict); err != nil {
			return err
		}
	} else {
		zr = flate.NewReaderDict(src, s.dict)
	}
	defer s.readers.Put(zr)
	buf.Reset()
	if _, err := buf.ReadFrom(zr); err != nil {
		return fmt.Errorf("row store: block %d: %w", i, err)
	}
	return nil
}

// readChunk reads one uvarint-length-prefixed chunk.
func readChunk(b []byte) (chunk, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

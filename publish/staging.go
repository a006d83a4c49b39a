package publish

// Staged files of the version folder: written through an asyncWriter that
// hashes and counts the bytes, and closed (made durable) in the background.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
)

// writeFile writes one file of the version folder through a buffer,
// hashing and counting the bytes on the way.
func (p *plan) writeFile(vw VersionWriter, name string, write func(io.Writer) error) (FileEntry, error) {
	f, err := p.createFile(vw, name)
	if err != nil {
		return FileEntry{}, err
	}
	return p.finishFile(f, write(f))
}

// stagedFile is a file of the version folder being written: its bytes
// are gathered into large blocks, each hashed, counted and written by a
// goroutine of its own, so that encoding the next bytes (CSV formatting,
// say) overlaps them.
type stagedFile struct {
	name string
	f    io.WriteCloser
	aw   *asyncWriter
}

func (p *plan) createFile(vw VersionWriter, name string) (*stagedFile, error) {
	f, err := vw.Create(name)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	return &stagedFile{name: name, f: f, aw: newAsyncWriter(f)}, nil
}

func (s *stagedFile) Write(b []byte) (int, error) { return s.aw.Write(b) }

// finishFile flushes a staged file (err: the write failed), starts
// closing it in the background (waitClosed) and returns its manifest entry.
func (p *plan) finishFile(s *stagedFile, err error) (FileEntry, error) {
	if aerr := s.aw.close(); err == nil {
		err = aerr
	}
	if err != nil {
		s.f.Close()
		return FileEntry{}, fmt.Errorf("write %s: %w", s.name, err)
	}
	// A file's fsync waits for its bytes to reach the disk, hundreds of
	// megabytes for a large CSV: the next table is written meanwhile.
	p.closing.Go(func() {
		if err := s.f.Close(); err != nil {
			p.closeMu.Lock()
			p.closeErr = errors.Join(p.closeErr, fmt.Errorf("write %s: %w", s.name, err))
			p.closeMu.Unlock()
		}
	})
	dir := "data/" + p.snap.Version + "/"
	return FileEntry{
		Path: s.name, Bytes: s.aw.n, SHA256: hex.EncodeToString(s.aw.h.Sum(nil)),
		URL: p.url(dir + s.name), LatestURL: p.url("data/latest/" + s.name),
	}, nil
}

// waitClosed waits until every staged file is closed and returns the
// errors of those that failed.
func (p *plan) waitClosed() error {
	p.closing.Wait()
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	return p.closeErr
}

func (p *plan) url(rel string) string {
	return strings.TrimSuffix(p.snap.BaseURL, "/") + "/" + rel
}

// asyncBlock is the size of the blocks an asyncWriter hands over.
const asyncBlock = 1 << 20

// asyncWriter gathers what it is given into blocks of asyncBlock bytes
// and hashes, counts and writes each in a goroutine of its own: Write
// copies the bytes (the one copy they get before the write) and returns at
// once, and close writes the last block and returns the first error.
type asyncWriter struct {
	w    io.Writer
	h    hash.Hash
	n    int64 // bytes written, read after close
	err  error // read after close
	cur  []byte
	ch   chan []byte
	free chan []byte
	done chan struct{}
}

func newAsyncWriter(w io.Writer) *asyncWriter {
	a := &asyncWriter{w: w, h: sha256.New(), ch: make(chan []byte, 2), free: make(chan []byte, 4), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		for b := range a.ch {
			if a.err == nil {
				a.h.Write(b)
				var n int
				n, a.err = a.w.Write(b)
				a.n += int64(n)
			}
			select {
			case a.free <- b[:0]:
			default:
			}
		}
	}()
	return a
}

func (a *asyncWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if a.cur == nil {
			select {
			case a.cur = <-a.free:
			default:
				a.cur = make([]byte, 0, asyncBlock)
			}
		}
		k := min(len(p), asyncBlock-len(a.cur))
		a.cur = append(a.cur, p[:k]...)
		p = p[k:]
		if len(a.cur) == asyncBlock {
			a.ch <- a.cur
			a.cur = nil
		}
	}
	return n, nil
}

func (a *asyncWriter) close() error {
	if len(a.cur) > 0 {
		a.ch <- a.cur
		a.cur = nil
	}
	close(a.ch)
	<-a.done
	return a.err
}

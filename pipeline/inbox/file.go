package inbox

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"svc/pipeline/durable"
)

// File is the inbox as a folder of segment files (JSON lines) under
// DATA/state/log, with the HMAC secret in DATA/state/secret. Every Append is
// written and fsync'd before it returns, so an answer sent after it
// survives a kill -9 the instant after. A record torn by a crash mid-write
// is dropped on replay and cut off before the next append, so it never
// glues onto a good record. Safe for concurrent use.
type File struct {
	dir     string
	mu      sync.Mutex
	f       *os.File
	size    int64
	segment int
	maxSize int64
	secret  []byte
}

// SegmentMax is the size at which a new segment starts.
const SegmentMax = 64 << 20

var _ Inbox = (*File)(nil)

// Open opens (creating) the file inbox under dir (DIR/state), creates the
// HMAC secret on first use, and repairs a torn tail.
func Open(dir string) (*File, error) {
	logDir := filepath.Join(dir, "log")
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		return nil, fmt.Errorf("open state %s: %w", dir, err)
	}
	secret, err := loadSecret(filepath.Join(dir, "secret"))
	if err != nil {
		return nil, err
	}
	l := &File{dir: logDir, maxSize: SegmentMax, secret: secret}
	segs, err := l.segments()
	if err != nil {
		return nil, err
	}
	l.segment = 1
	if len(segs) > 0 {
		l.segment = segs[len(segs)-1]
	}
	if err := l.openSegment(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *File) segName(n int) string { return filepath.Join(l.dir, fmt.Sprintf("%08d.jsonl", n)) }

func (l *File) segments() ([]int, error) {
	ents, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("list state log: %w", err)
	}
	var out []int
	for _, e := range ents {
		var n int
		if _, err := fmt.Sscanf(e.Name(), "%08d.jsonl", &n); err == nil && strings.HasSuffix(e.Name(), ".jsonl") {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// openSegment opens the current segment for appending, cutting a torn last
// line left by a crash.
func (l *File) openSegment() error {
	f, size, err := durable.OpenAppend(l.segName(l.segment), 0o600)
	if err != nil {
		return fmt.Errorf("open state segment: %w", err)
	}
	l.f, l.size = f, size
	return nil
}

// Append writes one record and fsyncs it before returning. Only then may the
// caller answer the request that produced it. A local write is not
// cancelled: ctx is not consulted.
func (l *File) Append(_ context.Context, typ string, t time.Time, data any) error {
	return l.append(typ, t, data, true)
}

// Note writes one record without waiting for the disk: it survives the
// process being killed (the kernel holds it), not a power cut. For counters,
// where an fsync per read request would cost more than the record is worth.
func (l *File) Note(_ context.Context, typ string, t time.Time, data any) error {
	return l.append(typ, t, data, false)
}

func (l *File) append(typ string, t time.Time, data any, sync bool) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("append %s: %w", typ, err)
	}
	line, err := json.Marshal(Record{Type: typ, Time: t.UTC(), Data: raw})
	if err != nil {
		return fmt.Errorf("append %s: %w", typ, err)
	}
	line = append(line, '\n')
	l.mu.Lock()
	if l.f == nil {
		l.mu.Unlock()
		return errors.New("append: state log closed")
	}
	if l.size+int64(len(line)) > l.maxSize && l.size > 0 {
		// Synced before it is closed: an Append still waiting for its
		// fsync of this segment finds it closed and counts on this.
		if err := syncFile(l.f); err != nil {
			l.mu.Unlock()
			return fmt.Errorf("append %s: fsync: %w", typ, err)
		}
		if err := l.f.Close(); err != nil {
			l.mu.Unlock()
			return err
		}
		l.segment++
		if err := l.openSegment(); err != nil {
			l.mu.Unlock()
			return err
		}
	}
	if _, err := l.f.Write(line); err != nil {
		l.mu.Unlock()
		return fmt.Errorf("append %s: %w", typ, err)
	}
	l.size += int64(len(line))
	f := l.f
	l.mu.Unlock()
	// The fsync runs outside the lock: a slow disk holds up this caller
	// only, never the writers of other records (every limited read notes a
	// counter). One fsync covers every record written before it.
	if sync {
		if err := syncFile(f); err != nil && !errors.Is(err, os.ErrClosed) {
			return fmt.Errorf("append %s: fsync: %w", typ, err)
		}
	}
	return nil
}

// syncFile is (*os.File).Sync; a test holds it to see that a waiting fsync
// never holds up other records.
var syncFile = (*os.File).Sync

// Replay calls fn for every complete record of the inbox, oldest first.
func (l *File) Replay(ctx context.Context, fn func(Record) error) error {
	return DirReader(filepath.Dir(l.dir)).Replay(ctx, fn)
}

// Records calls fn for every record of type typ whose time is not after
// until (zero: no bound), oldest first.
func (l *File) Records(ctx context.Context, typ string, until time.Time, fn func(Record) error) error {
	return records(ctx, l.Replay, typ, until, fn)
}

// DirReader reads the file inbox under a folder (DIR/state) without opening
// it: it never writes and needs no secret, so the pipeline can read a live
// server's inbox. A missing folder is an empty inbox.
type DirReader string

var _ Reader = DirReader("")

// Replay calls fn for every complete record, oldest first.
func (d DirReader) Replay(ctx context.Context, fn func(Record) error) error {
	l := &File{dir: filepath.Join(string(d), "log")}
	segs, err := l.segments()
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, n := range segs {
		if err := replaySegment(ctx, l.segName(n), fn); err != nil {
			return err
		}
	}
	return nil
}

// Records calls fn for every record of type typ whose time is not after
// until (zero: no bound), oldest first.
func (d DirReader) Records(ctx context.Context, typ string, until time.Time, fn func(Record) error) error {
	return records(ctx, d.Replay, typ, until, fn)
}

func replaySegment(ctx context.Context, name string, fn func(Record) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("replay %s: %w", name, err)
	}
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("replay %s: %w", name, err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var rec Record
			if jerr := json.Unmarshal(line, &rec); jerr == nil && rec.Type != "" {
				if ferr := fn(rec); ferr != nil {
					return ferr
				}
			}
		}
		if err == nil {
			if cerr := ctx.Err(); cerr != nil {
				return fmt.Errorf("replay %s: %w", name, cerr)
			}
		}
		if err == io.EOF {
			return nil // a line without '\n' is a torn tail: dropped
		}
		if err != nil {
			return fmt.Errorf("replay %s: %w", name, err)
		}
	}
}

// Close closes the log.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	// Synced before it is closed, for an Append still waiting for its fsync.
	err := errors.Join(syncFile(l.f), l.f.Close())
	l.f = nil
	return err
}

// Key returns the keyed hash that stands for a client address in limits:
// the raw address is never stored or logged.
func (l *File) Key(addr string) string { return keyOf(l.secret, addr) }

// keyOf is the HMAC-SHA256 of addr with secret, cut to 16 bytes, in hex.
func keyOf(secret []byte, addr string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(addr))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// loadSecret reads the HMAC secret, creating it (atomically) on first use.
func loadSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil && len(b) >= 32 {
		return b, nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read state secret: %w", err)
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	if err := durable.WriteFileAtomic(path, secret, 0o600); err != nil {
		return nil, fmt.Errorf("write state secret: %w", err)
	}
	return secret, nil
}

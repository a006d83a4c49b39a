package bucket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"svc/publish"
)

// lease is the lock object's body.
type lease struct {
	Owner   string    `json:"owner"` // random token of the holder
	Host    string    `json:"host"`  // for the operator who finds it
	Expires time.Time `json:"expires"`
}

// Lock implements publish.Store with a lease: the object root + ".lock",
// created with a conditional PUT (If-None-Match: *), so of two writers
// exactly one gets it. It holds until its expiry time, Lease from the
// last renewal; the holder renews it every Lease/3 with a compare-and-swap
// PUT (If-Match: its ETag), and unlock deletes it.
//
// A writer that dies leaves the lock behind; once it has expired, the
// next writer breaks it, again by compare-and-swap on the ETag it read, so
// of two writers breaking the same lease only one wins. The lease assumes
// the writers' clocks agree to well within Lease, and that a holder does
// not stall (for example suspended) for longer than Lease: a stalled
// holder may find its lease broken, which its next renewal detects and
// its unlock reports, but writes it was making meanwhile are not fenced.
// When the scheduler already guarantees one writer, the lease is simply
// never contended.
//
// On success Lock also checks that the server honors If-None-Match (a
// second conditional PUT of the lock must fail), because the store's
// guarantees rest on it, and removes what a killed writer left behind.
func (s *Store) Lock(ctx context.Context) (func() error, error) {
	l, err := s.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", s.b.String()+"/"+s.lockKey, err)
	}
	if err := s.removeLeftovers(ctx); err != nil {
		l.unlock()
		return nil, err
	}
	return l.unlock, nil
}

// held is a lease this process holds.
type held struct {
	s     *Store
	ctx   context.Context // of Lock, for the renewals and unlock
	owner string
	host  string

	mu   sync.Mutex
	etag string
	lost error // set when a renewal found the lease taken

	stop chan struct{}
	done chan struct{}
	once sync.Once
	err  error
}

func (s *Store) leaseBody(owner, host string) []byte {
	b, _ := json.Marshal(lease{Owner: owner, Host: host, Expires: s.now().Add(s.lease).UTC()})
	return b
}

func (s *Store) acquire(ctx context.Context) (*held, error) {
	host, _ := os.Hostname()
	owner := randomHex()
	body := s.leaseBody(owner, host)
	var info Object
	var err error
	for attempt := 0; ; attempt++ {
		info, err = s.b.PutIfAbsent(ctx, s.lockKey, body)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
		var cur []byte
		var curInfo Object
		cur, curInfo, err = s.b.ReadSmall(ctx, s.lockKey, maxPointer)
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue // released meanwhile: try again
		}
		if err != nil {
			return nil, err
		}
		var l lease
		if json.Unmarshal(cur, &l) != nil || l.Expires.IsZero() {
			// Not a lease we wrote: it lasts Lease from when it was put.
			l = lease{Owner: "?", Host: "?", Expires: curInfo.LastModified.Add(s.lease)}
		}
		if l.Owner == owner {
			info = curInfo // our own PUT went through and was retried
			err = nil
			break
		}
		if s.now().Before(l.Expires) {
			return nil, fmt.Errorf("held by %s (host %q) until %s: %w", l.Owner, l.Host, l.Expires.Format(time.RFC3339), publish.ErrLocked)
		}
		// Expired: break it, unless someone else did first.
		info, err = s.b.PutIfMatch(ctx, s.lockKey, body, curInfo.ETag)
		if errors.Is(err, ErrChanged) {
			return nil, fmt.Errorf("expired lease of %s taken over by another writer: %w", l.Owner, publish.ErrLocked)
		}
		break
	}
	if err != nil {
		return nil, err
	}
	h := &held{s: s, ctx: ctx, owner: owner, host: host, etag: info.ETag, stop: make(chan struct{}), done: make(chan struct{})}
	// The store's guarantees rest on conditional PUTs: make sure the
	// server does not ignore them. The second PUT has the same bytes, so
	// if it goes through the lease is unchanged.
	if _, err := s.b.PutIfAbsent(ctx, s.lockKey, body); !errors.Is(err, fs.ErrExist) {
		s.b.Delete(context.WithoutCancel(ctx), s.lockKey)
		if err == nil {
			return nil, fmt.Errorf("the server at %s ignored If-None-Match: * on PUT; conditional writes are required (AWS S3, MinIO, R2 support them)", s.b.client.EndpointURL().Host)
		}
		return nil, err
	}
	go h.renew(ctx)
	return h, nil
}

// renew extends the lease every Lease/3 until unlock, by compare-and-swap.
func (h *held) renew(ctx context.Context) {
	defer close(h.done)
	t := time.NewTicker(max(h.s.lease/3, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		h.mu.Lock()
		etag := h.etag
		h.mu.Unlock()
		info, err := h.s.b.PutIfMatch(ctx, h.s.lockKey, h.s.leaseBody(h.owner, h.host), etag)
		h.mu.Lock()
		switch {
		case errors.Is(err, ErrChanged):
			h.lost = err
		case err == nil:
			h.etag = info.ETag
		}
		// Another error (the network): try again at the next tick.
		h.mu.Unlock()
		if errors.Is(err, ErrChanged) {
			return
		}
	}
}

// unlock stops the renewals and deletes the lock if it is still ours.
// Between its check and its delete another writer could only have taken
// the lock by breaking an expired lease, which renewal prevents.
func (h *held) unlock() error {
	h.once.Do(func() {
		close(h.stop)
		<-h.done
		h.mu.Lock()
		lost, etag := h.lost, h.etag
		h.mu.Unlock()
		if lost != nil {
			h.err = fmt.Errorf("unlock: the lease was broken by another writer: %w", lost)
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(h.ctx), 30*time.Second)
		defer cancel()
		cur, err := h.s.b.Stat(ctx, h.s.lockKey)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			h.err = errors.New("unlock: the lock object is gone")
		case err != nil:
			h.err = fmt.Errorf("unlock: %w", err)
		case cur.ETag != etag:
			h.err = errors.New("unlock: the lease was broken by another writer")
		default:
			h.err = h.s.b.Delete(ctx, h.s.lockKey)
		}
	})
	return h.err
}

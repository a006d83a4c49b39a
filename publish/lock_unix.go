//go:build unix

package publish

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Lock implements Store with flock(2) on the lock file, which the kernel
// releases when the process dies, then removes every temporary entry left
// under the root by a writer that was killed.
func (s *DirStore) Lock(ctx context.Context) (func() error, error) {
	f, err := os.OpenFile(s.lock, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock %s: %w", s.lock, ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", s.lock, err)
	}
	unlock := func() error { return f.Close() } // closing releases the flock
	if err := s.removeTemporaries(); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

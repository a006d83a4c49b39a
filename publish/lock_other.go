//go:build !unix

package publish

import (
	"context"
	"errors"
)

// Lock implements Store; only unix systems have the flock(2) it needs.
func (s *DirStore) Lock(ctx context.Context) (func() error, error) {
	return nil, errors.New("dir store: locking needs a unix system")
}

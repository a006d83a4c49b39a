//go:build !linux

package publish

import (
	"errors"
	"os"
)

// setDirect: direct I/O is used on Linux only.
func setDirect(*os.File, bool) error { return errors.ErrUnsupported }

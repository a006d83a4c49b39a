package publish

import (
	"os"
	"syscall"
)

// setDirect turns direct I/O (O_DIRECT) on or off for f. It fails where
// the filesystem has none (tmpfs, say); f is then left as it was.
func setDirect(f *os.File, on bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		if errno != 0 {
			serr = errno
			return
		}
		if on {
			flags |= syscall.O_DIRECT
		} else {
			flags &^= syscall.O_DIRECT
		}
		if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFL, flags); errno != 0 {
			serr = errno
		}
	})
	if err != nil {
		return err
	}
	return serr
}

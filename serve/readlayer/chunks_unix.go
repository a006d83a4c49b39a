//go:build unix

package readlayer

import "syscall"

// allocChunk returns an empty byte slice with room for n bytes, mapped
// outside the Go heap: the compressed lookup records of a snapshot are
// tens of megabytes that live for a week, and on the heap the collector
// would let the heap grow by as much again before each collection. The
// memory is freed with freeChunk only, once no request reads it.
func allocChunk(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, 0, n) // no mapping to be had: the heap will do
	}
	return b[:0]
}

// freeChunk releases a chunk from allocChunk.
func freeChunk(b []byte) {
	// Munmap refuses (EINVAL) a slice it did not map, such as the heap
	// fallback: the collector has that one.
	_ = syscall.Munmap(b[:cap(b)])
}

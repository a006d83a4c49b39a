//go:build !unix

package readlayer

// allocChunk returns an empty byte slice with room for n bytes; outside
// unix it is on the Go heap.
func allocChunk(n int) []byte { return make([]byte, 0, n) }

// freeChunk releases a chunk from allocChunk: the collector does.
func freeChunk([]byte) {}

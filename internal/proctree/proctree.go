// Package proctree lists a process and the processes descended from it,
// from Linux's /proc: the tests and benchmarks that count and weigh
// Chromium's processes use it.
package proctree

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Descendants returns root and every process descended from it, root
// first, breadth first, leaving out skip and its descendants (a skip below
// 1 leaves out none). Processes that end while it reads are left out.
func Descendants(root, skip int) []int {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:]))
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		if len(fields) > 1 {
			ppid, _ := strconv.Atoi(fields[1])
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		pid := queue[0]
		if pid == skip {
			continue
		}
		out = append(out, pid)
		queue = append(queue, children[pid]...)
	}
	return out
}

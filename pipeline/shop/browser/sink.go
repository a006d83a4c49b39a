package browser

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// sink is the proxy Chromium is configured with. It refuses every request
// and every CONNECT, and counts them by host (never by URL), so that
// anything escaping request interception is stopped and visible.
type sink struct {
	ln   net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	hits map[string]int
}

func newSink() (*sink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &sink{ln: ln, hits: map[string]int{}}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

func (s *sink) addr() string { return s.ln.Addr().String() }

func (s *sink) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.refuse(c)
	}
}

// refuse reads one request head and answers 403, then closes.
func (s *sink) refuse(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	req, err := http.ReadRequest(bufio.NewReaderSize(c, 8<<10))
	host := "unknown"
	if err == nil {
		host = req.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	host = strings.ToLower(host)
	if len(host) > 253 {
		host = host[:253]
	}
	s.mu.Lock()
	if len(s.hits) < 1000 {
		s.hits[host]++
	}
	s.mu.Unlock()
	_, _ = c.Write([]byte("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
}

func (s *sink) counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.hits))
	for k, v := range s.hits {
		out[k] = v
	}
	return out
}

func (s *sink) close() {
	s.ln.Close()
	s.wg.Wait()
}

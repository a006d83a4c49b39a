package fetch

import (
	"net"
	"sync/atomic"
)

// Meter counts what a client sends and reads: requests (each hop of a
// redirect is one), the bytes read off its connections (TLS, headers and
// bodies as they crossed the wire) and the body bytes it handed back. A
// nil *Meter counts nothing.
type Meter struct {
	requests, wire, body atomic.Int64
}

// Requests is the number of requests sent (a redirect followed counts once).
func (m *Meter) Requests() int64 { return m.requests.Load() }

// WireBytes is the number of bytes read from the client's connections.
func (m *Meter) WireBytes() int64 { return m.wire.Load() }

// BodyBytes is the number of body bytes read (decoded).
func (m *Meter) BodyBytes() int64 { return m.body.Load() }

func (m *Meter) addRequest() {
	if m != nil {
		m.requests.Add(1)
	}
}

func (m *Meter) addBody(n int) {
	if m != nil {
		m.body.Add(int64(n))
	}
}

// conn wraps a dialled connection so its reads are counted.
func (m *Meter) conn(c net.Conn, err error) (net.Conn, error) {
	if m == nil || err != nil {
		return c, err
	}
	return &meteredConn{Conn: c, m: m}, nil
}

type meteredConn struct {
	net.Conn
	m *Meter
}

func (c *meteredConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.m.wire.Add(int64(n))
	return n, err
}

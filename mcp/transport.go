package mcp

import (
	"context"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// answering is the SDK's stdio transport (newline-delimited JSON-RPC on in
// and out) whose end of input waits for the replies to the calls read
// before it. The SDK ends a session at the end of its input at once: it
// cancels the calls in flight and writes nothing more, so
// `printf 'initialize\ntools/list\n' | toold mcp` answered nothing. Here
// the end (or any read error) is held back from the SDK until every call
// read has been answered, the replies cannot be written, the server has
// asked the client something (roots/list: no answer can come, and a call
// waiting on it would wait for ever), or the connection is closed (a
// signal, the daemon gone).
func answering(in io.ReadCloser, out io.WriteCloser) sdk.Transport {
	return transportFunc(func(ctx context.Context) (sdk.Connection, error) {
		c, err := (&sdk.IOTransport{Reader: in, Writer: out}).Connect(ctx)
		if err != nil {
			return nil, err
		}
		return &answeringConn{Connection: c, open: map[jsonrpc.ID]int{}, idle: make(chan struct{}), closed: make(chan struct{})}, nil
	})
}

// transportFunc makes a function an sdk.Transport.
type transportFunc func(context.Context) (sdk.Connection, error)

func (f transportFunc) Connect(ctx context.Context) (sdk.Connection, error) { return f(ctx) }

// answeringConn counts the calls read and not yet answered.
type answeringConn struct {
	sdk.Connection

	mu     sync.Mutex
	open   map[jsonrpc.ID]int // calls read, by id, not yet answered
	n      int                // the sum of open's counts
	ended  bool               // the input has ended: idle is closed once n is 0
	idle   chan struct{}      // closed once the input has ended and nothing is open
	broken bool               // a write failed: no reply can come
	asked  int                // the server's calls to the client not yet answered

	closeOnce sync.Once
	closed    chan struct{}
}

// Read reads the next message, counting calls. Its error (the end of
// input above all) is returned once every call read has been answered.
func (c *answeringConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		c.mu.Lock()
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.IsCall() {
				c.open[m.ID]++
				c.n++
			}
		case *jsonrpc.Response:
			c.asked = max(c.asked-1, 0)
		}
		c.mu.Unlock()
		return msg, nil
	}
	c.mu.Lock()
	c.ended = true
	c.settle()
	c.mu.Unlock()
	select {
	case <-c.idle:
	case <-c.closed:
	case <-ctx.Done():
	}
	return nil, err
}

// Write writes msg; a reply settles its call, and a failed write every
// call (none can be answered now).
func (c *answeringConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if err == nil && m.IsCall() {
			c.asked++
		}
	case *jsonrpc.Response:
		if k := c.open[m.ID]; k > 1 {
			c.open[m.ID] = k - 1
			c.n--
		} else if k == 1 {
			delete(c.open, m.ID)
			c.n--
		}
	}
	if err != nil {
		c.broken = true
	}
	c.settle()
	return err
}

// settle closes idle once the input has ended and no reply is to come;
// c.mu is held.
func (c *answeringConn) settle() {
	if c.ended && (c.n == 0 || c.broken || c.asked > 0) {
		select {
		case <-c.idle:
		default:
			close(c.idle)
		}
	}
}

// Close ends a Read held back at the end of input, and the connection.
func (c *answeringConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

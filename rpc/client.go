package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// Client is the calling side of a connection: tests, `toold call` and the
// forwarder use it. It is safe for concurrent use.
type Client struct {
	conn *jsonrpc2.Conn
	st   *stream
	seq  atomic.Uint64
}

// NewClient starts a client on rwc that writes and reads framing
// (FramingAuto means FramingLines). The client owns rwc: Close closes it, and
// so does ctx being done.
func NewClient(ctx context.Context, rwc io.ReadWriteCloser, framing Framing) *Client {
	if framing == FramingAuto {
		framing = FramingLines
	}
	log := slog.Default()
	st := newStream(rwc, framing, DefaultMaxMessageBytes, false, log)
	c := &Client{st: st}
	c.conn = jsonrpc2.NewConn(ctx, st, clientHandler{}, jsonrpc2.SetLogger(libLogger{log}))
	return c
}

// Call sends a request and waits for its reply, decoding the result into
// result (a pointer, or nil to drop it). An error reply is returned as an
// *Error with the server's code, message and data (a json.RawMessage). When
// ctx is done first, Call sends $/cancelRequest for the request and returns
// ctx's error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	id := jsonrpc2.ID{Num: c.seq.Add(1)} // from 1: a reply with a null id is never taken for ours
	w, err := c.conn.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		return fmt.Errorf("rpc: call %s: %w", method, err)
	}
	err = w.Wait(ctx, result)
	if err == nil {
		return nil
	}
	var we *jsonrpc2.Error
	if errors.As(err, &we) {
		return fromWire(we)
	}
	if ctx.Err() != nil {
		// Best effort: the server stops the work; its late reply is dropped.
		if nerr := c.conn.Notify(context.Background(), CancelMethod, map[string]any{"id": id}); nerr != nil {
			slog.Debug("rpc: cannot send $/cancelRequest", "method", method, "err", nerr)
		}
	}
	return fmt.Errorf("rpc: call %s: %w", method, err)
}

// Notify sends a notification; it returns once it is written.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	if err := c.conn.Notify(ctx, method, params); err != nil {
		return fmt.Errorf("rpc: notify %s: %w", method, err)
	}
	return nil
}

// Done is closed when the connection has ended (closed, or the server's
// output ended).
func (c *Client) Done() <-chan struct{} {
	return c.conn.DisconnectNotify()
}

// Close closes the connection and waits for its reader to stop. Calls still
// waiting return an error.
func (c *Client) Close() error {
	err := c.conn.Close()
	<-c.st.done
	if errors.Is(err, jsonrpc2.ErrClosed) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("rpc: close: %w", err)
	}
	return nil
}

// clientHandler answers the server's requests, if it sends any, with -32601.
type clientHandler struct{}

func (clientHandler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		return
	}
	we := wireError(MethodNotFound(req.Method), slog.Default())
	if err := conn.ReplyWithError(ctx, req.ID, we); err != nil {
		slog.Debug("rpc: cannot answer the server's request", "method", req.Method, "err", err)
	}
}

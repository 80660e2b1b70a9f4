package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// Client is the calling side of a connection: tests, `toold call` and the
// forwarder use it. It is safe for concurrent use.
type Client struct {
	conn *jsonrpc2.Conn
	st   *stream
	seq  atomic.Uint64

	pmu      sync.Mutex
	progress map[string]*progressFn // by the token's compact JSON
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
	c := &Client{st: st, progress: make(map[string]*progressFn)}
	c.conn = jsonrpc2.NewConn(ctx, st, clientHandler{c}, jsonrpc2.SetLogger(libLogger{log}))
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

// OnProgress calls fn with the value of each $/progress notification for
// token (a string or a number, as the request's workDoneToken gives it)
// until remove is called (a call under way then ends before remove
// returns). Notifications are handled in the order they
// arrive, before the reply that follows them: fn must not block.
func (c *Client) OnProgress(token any, fn func(value json.RawMessage)) (remove func(), err error) {
	key, err := json.Marshal(token)
	if err != nil {
		return nil, fmt.Errorf("rpc: progress token: %w", err)
	}
	e := &progressFn{fn: fn}
	c.pmu.Lock()
	c.progress[string(key)] = e
	c.pmu.Unlock()
	return func() {
		c.pmu.Lock()
		delete(c.progress, string(key))
		c.pmu.Unlock()
		// A call under way ends first: nothing is relayed after remove
		// returns (an MCP progress notification after its tool's result).
		e.mu.Lock()
		e.removed = true
		e.mu.Unlock()
	}, nil
}

// progressFn is OnProgress's fn, called under mu until it is removed.
type progressFn struct {
	mu      sync.Mutex
	fn      func(value json.RawMessage)
	removed bool
}

// onProgress passes a $/progress notification to its token's function.
func (c *Client) onProgress(params *json.RawMessage) {
	if params == nil {
		return
	}
	var p struct {
		Token json.RawMessage `json:"token"`
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(*params, &p) != nil {
		return
	}
	var key bytes.Buffer
	if json.Compact(&key, p.Token) != nil {
		return
	}
	c.pmu.Lock()
	e := c.progress[key.String()]
	c.pmu.Unlock()
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.removed {
		e.fn(p.Value)
	}
}

// clientHandler takes the server's progress notifications and answers its
// requests, if it sends any, with -32601.
type clientHandler struct{ c *Client }

func (h clientHandler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		if req.Method == ProgressMethod {
			h.c.onProgress(req.Params)
		}
		return
	}
	we := wireError(MethodNotFound(req.Method), slog.Default())
	if err := conn.ReplyWithError(ctx, req.ID, we); err != nil {
		slog.Debug("rpc: cannot answer the server's request", "method", req.Method, "err", err)
	}
}

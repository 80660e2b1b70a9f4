package rpc

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Request is one request or notification, as a Handler sees it.
type Request struct {
	// Method is the method's name.
	Method string
	// Params is the raw params: nil when absent, "null" when null.
	Params json.RawMessage
	// ID is the request's id (zero for a notification).
	ID jsonrpc2.ID
	// Notif is true for a notification: no reply is sent.
	Notif bool
}

// Handler answers one request or notification. For a request its (result,
// err) becomes the reply: err, when not nil, is turned into the error object
// (see Server); otherwise result is encoded as JSON. For a notification both
// are dropped. ctx is cancelled by $/cancelRequest, when the client goes away
// and when ServeConn's context is done.
type Handler func(ctx context.Context, req *Request) (result any, err error)

// DefaultMaxInFlight is Server.MaxInFlight when it is 0.
const DefaultMaxInFlight = 64

// DefaultWriteTimeout is Server.WriteTimeout when it is 0.
const DefaultWriteTimeout = time.Minute

// CancelMethod is the notification that cancels an in-flight request of the
// same client; the server handles it itself and never passes it to Handler.
const CancelMethod = "$/cancelRequest"

// Server serves JSON-RPC 2.0 clients, one per ServeConn call, with Handler.
//
// Requests run concurrently, each in its own goroutine with its own context,
// except those Inline names. A handler's error becomes the reply's error
// object: an *Error anywhere in its chain (errors.As) gives that code, message
// and data; an error that is or wraps context.Canceled gives -32800; any other
// error -32603 with its message. A panic in a handler is logged with its stack
// and answered with -32603; the connection goes on.
type Server struct {
	// Handler answers every request and notification but $/cancelRequest;
	// it returns MethodNotFound for a method it does not know.
	Handler Handler
	// Inline reports the methods to run on the read loop, in order, before the
	// next message is read (initialize, shutdown, exit, session/close), so a
	// client that pipes "initialize" then "read" sees them run in that order.
	// An inline handler cannot be cancelled by $/cancelRequest (nothing is
	// read while it runs). Nil means none.
	Inline func(method string) bool
	// Admit, if set, runs on the read loop for each request and notification
	// that is not Inline, in the order the client sent them, just before it
	// is dispatched to Handler in a goroutine of its own. Handler gets the
	// context Admit returns (derived from the one it is given), and done, if
	// not nil, is called once Handler has returned. What an inline request
	// (shutdown, session/close) does to the requests sent before it is so
	// decided in the client's order, not in the order goroutines happen to
	// run. Admit must not block.
	Admit func(ctx context.Context, req *Request) (admitted context.Context, done func())
	// MaxInFlight caps the requests and notifications of one connection
	// that run at once. At the cap the connection's reads pause until one
	// finishes (and has written its reply), so a client that floods requests
	// and never reads the replies holds a bounded amount of memory: the
	// kernel's buffers and MaxInFlight replies. 0 means DefaultMaxInFlight.
	MaxInFlight int
	// WriteTimeout bounds one reply's write, where the connection takes
	// deadlines (net.Conn, a pollable *os.File): a client that reads nothing
	// for that long, its requests in flight at the cap and its reads paused,
	// has stopped reading, and is treated as gone (as a failed write is).
	// 0 means DefaultWriteTimeout; negative, none.
	WriteTimeout time.Duration
	// MaxMessageBytes caps one message; a larger one is dropped unread and
	// answered with -32600. 0 means DefaultMaxMessageBytes (16 MiB).
	MaxMessageBytes int
	// DrainTimeout is how long running requests may go on after the client's
	// input ends before their contexts are cancelled. 0 means 1s.
	DrainTimeout time.Duration
	// CancelTimeout is how long requests cancelled at the end of the
	// input may take to answer before the replies still not written (a
	// client that never reads them) are aborted: a handler that must stop
	// something first (a command that ignores SIGTERM is killed some
	// seconds later) needs longer than the drain. 0 means DrainTimeout.
	CancelTimeout time.Duration
	// Logger receives the server's logs. Nil means slog.Default().
	Logger *slog.Logger
}

// ServeConn serves one client on rwc until its input ends, a write fails, or
// ctx is done, and returns after every handler it started has returned and
// its reply has been written (or has failed).
//
// At the end of the input, running requests get DrainTimeout to finish, then
// their contexts are cancelled, and the replies they still give are written.
// A failed write (the client is gone) cancels every running request at once.
// ctx done cancels every running request and closes rwc.
//
// It returns nil when the input ended, ctx.Err() when ctx was done, and the
// write or read error otherwise. rwc is closed on return. Closing rwc must
// unblock a pending Read (true of net.Conn and of os.Pipe files; for stdin,
// set the descriptor non-blocking before os.NewFile) or ServeConn waits for
// the next byte or end of input.
func (s *Server) ServeConn(ctx context.Context, rwc io.ReadWriteCloser) error {
	if s.Handler == nil {
		rwc.Close()
		return errors.New("rpc: Server.Handler is nil")
	}
	log := s.Logger
	if log == nil {
		log = slog.Default()
	}
	drain := s.DrainTimeout
	if drain <= 0 {
		drain = time.Second
	}
	maxInFlight := s.MaxInFlight
	if maxInFlight <= 0 {
		maxInFlight = DefaultMaxInFlight
	}
	base, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	c := &serverConn{
		slots:     make(chan struct{}, maxInFlight),
		handler:   s.Handler,
		inline:    s.Inline,
		admit:     s.Admit,
		drain:     drain,
		cancelled: cmp.Or(s.CancelTimeout, drain),
		log:       log,
		base:      base,
		cancelAll: cancelAll,
		inflight:  make(map[jsonrpc2.ID][]*flight),
	}
	c.st = newStream(rwc, FramingAuto, s.MaxMessageBytes, true, log)
	c.st.onEnd = c.drainRequests
	c.st.onWriteErr = c.writeFailed
	c.st.writeTimeout = s.WriteTimeout
	if c.st.writeTimeout == 0 {
		c.st.writeTimeout = DefaultWriteTimeout
	}

	// jsonrpc2 closes the Conn when this context is done; we close it
	// ourselves, and cancel this only to end jsonrpc2's watcher goroutine.
	connCtx, stopConn := context.WithCancel(context.Background())
	defer stopConn()
	jc := jsonrpc2.NewConn(connCtx, c.st, c, jsonrpc2.SetLogger(libLogger{log}))

	var err error
	select {
	case <-jc.DisconnectNotify():
	case <-ctx.Done():
		err = ctx.Err()
	}
	cancelAll()
	jc.Close()
	<-c.st.done // the read loop has stopped: no handler starts after this
	c.wg.Wait()
	c.st.Close()

	if err != nil {
		return err
	}
	c.mu.Lock()
	werr := c.writeErr
	c.mu.Unlock()
	if werr != nil {
		return fmt.Errorf("rpc: write: %w", werr)
	}
	if c.st.readErr != nil {
		return fmt.Errorf("rpc: read: %w", c.st.readErr)
	}
	return nil
}

// serverConn is one client's connection.
type serverConn struct {
	handler Handler
	inline  func(string) bool
	admit   func(context.Context, *Request) (context.Context, func())
	drain   time.Duration
	// cancelled bounds the answers of requests cancelled by the drain
	// (Server.CancelTimeout).
	cancelled time.Duration
	log       *slog.Logger
	st        *stream

	base      context.Context // parent of every request's context
	cancelAll context.CancelFunc

	// slots holds a token for each request goroutine: a full channel
	// pauses the read loop (see Server.MaxInFlight).
	slots chan struct{}

	// wg counts request goroutines. Add is called only on the read loop, and
	// ServeConn waits for the read loop before it waits for wg.
	wg sync.WaitGroup

	mu       sync.Mutex
	inflight map[jsonrpc2.ID][]*flight // requests $/cancelRequest can reach
	writeErr error                     // the first failed write
}

// flight is one running request.
type flight struct{ cancel context.CancelFunc }

// progressFor returns the Progress of req when its params carry a
// workDoneToken (nil when not, or for a notification), or the -32602 error
// of a token that is neither a string nor a number.
func (c *serverConn) progressFor(req *Request) (*Progress, error) {
	if req.Notif {
		return nil, nil
	}
	tok, err := workDoneToken(req.Params)
	if tok == nil || err != nil {
		return nil, err
	}
	return NewProgress(tok, 0, c.notify), nil
}

// notify sends a $/progress notification.
func (c *serverConn) notify(token json.RawMessage, value any) error {
	body, err := json.Marshal(progressParams{Token: token, Value: value})
	if err != nil {
		c.log.Error("rpc: cannot encode progress", "err", err)
		return err
	}
	return c.st.writeNotification(ProgressMethod, body)
}

// Handle implements jsonrpc2.Handler. It runs on the read loop.
func (c *serverConn) Handle(_ context.Context, jc *jsonrpc2.Conn, jr *jsonrpc2.Request) {
	req := &Request{Method: jr.Method, ID: jr.ID, Notif: jr.Notif}
	if jr.Params != nil {
		req.Params = *jr.Params
	}
	if c.base.Err() != nil {
		return // shutting down: start nothing new
	}
	if req.Method == CancelMethod {
		c.cancelRequest(req.Params)
		if !req.Notif {
			c.reply(jc, req, nil, nil)
		}
		return
	}
	ctx, cancel := context.WithCancel(context.WithValue(c.base, connKey{}, jc))
	var f *flight
	if !req.Notif {
		f = &flight{cancel: cancel}
		c.mu.Lock()
		c.inflight[req.ID] = append(c.inflight[req.ID], f)
		c.mu.Unlock()
	}
	if c.inline != nil && c.inline(req.Method) {
		c.run(ctx, cancel, f, jc, req)
		return
	}
	// Blocking here blocks the read loop: that is the backpressure.
	select {
	case c.slots <- struct{}{}:
	case <-c.base.Done():
		cancel()
		c.forget(req.ID, f)
		return
	}
	done := func() {}
	if c.admit != nil {
		var admitted context.Context
		if admitted, done = c.admit(ctx, req); admitted != nil {
			ctx = admitted
		}
		if done == nil {
			done = func() {}
		}
	}
	c.wg.Go(func() {
		defer func() { <-c.slots }()
		defer done()
		c.run(ctx, cancel, f, jc, req)
	})
}

// run calls the handler and sends its reply.
func (c *serverConn) run(ctx context.Context, cancel context.CancelFunc, f *flight, jc *jsonrpc2.Conn, req *Request) {
	defer cancel()
	prog, err := c.progressFor(req)
	var result any
	if err == nil {
		result, err = c.call(WithProgress(ctx, prog), req)
		prog.Close() // no progress may follow the reply
	}
	c.forget(req.ID, f)
	if req.Notif {
		if err != nil {
			c.log.Debug("rpc: notification failed", "method", req.Method, "err", err)
		}
		return
	}
	c.reply(jc, req, result, err)
}

// forget removes f, once finished, from the requests $/cancelRequest can
// reach.
func (c *serverConn) forget(id jsonrpc2.ID, f *flight) {
	if f == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	list := c.inflight[id]
	for i, g := range list {
		if g == f {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(c.inflight, id)
	} else {
		c.inflight[id] = list
	}
}

// call runs the handler, turning a panic into -32603.
func (c *serverConn) call(ctx context.Context, req *Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("rpc: handler panicked", "method", req.Method, "id", req.ID.String(),
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			result, err = nil, Errorf(CodeInternalError, nil, "internal error: %s panicked: %v", req.Method, p)
		}
	}()
	return c.handler(ctx, req)
}

// reply sends the answer to req. A failed write has already been reported to
// writeFailed by the stream.
func (c *serverConn) reply(jc *jsonrpc2.Conn, req *Request, result any, err error) {
	resp := &jsonrpc2.Response{ID: req.ID}
	if err == nil {
		if merr := resp.SetResult(result); merr != nil {
			c.log.Error("rpc: cannot encode a result", "method", req.Method, "err", merr)
			err = Errorf(CodeInternalError, nil, "internal error: cannot encode the result of %s: %v", req.Method, merr)
		}
	}
	var serr error
	if err != nil {
		serr = c.st.writeError(req.ID, wireError(err, c.log))
	} else {
		serr = c.st.writeResult(req.ID, *resp.Result)
	}
	if serr != nil {
		c.log.Debug("rpc: reply not sent", "method", req.Method, "id", req.ID.String(), "err", serr)
	}
}

// cancelRequest cancels the requests $/cancelRequest names. An id that is
// unknown, finished or malformed is ignored, as LSP says.
func (c *serverConn) cancelRequest(params json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		c.log.Debug("rpc: ignored a malformed $/cancelRequest", "err", err)
		return
	}
	id, ok := parseID(p.ID)
	if !ok {
		id, ok = c.st.lookupAlias(p.ID) // a request whose id jsonrpc2 cannot hold
	}
	if !ok {
		c.log.Debug("rpc: ignored a $/cancelRequest without a usable id", "id", string(p.ID))
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.inflight[id] {
		f.cancel()
	}
}

// drainRequests runs on the read loop when the input has ended: running
// requests get c.drain to finish, then their contexts are cancelled; it
// returns when all have returned (and replied). Replies that are still
// not written c.cancelled after the cancel (a client that never reads them) are
// aborted, so that a connection whose input has ended always ends.
func (c *serverConn) drainRequests() {
	idle := make(chan struct{})
	go func() { // ends when wg does, before drainRequests returns
		c.wg.Wait()
		close(idle)
	}()
	t := time.NewTimer(c.drain)
	defer t.Stop()
	select {
	case <-idle:
		return
	case <-t.C:
		c.log.Debug("rpc: input ended and requests still run after the drain timeout; cancelling them", "timeout", c.drain)
	case <-c.base.Done():
	}
	c.cancelAll()
	t.Reset(c.cancelled)
	select {
	case <-idle:
		return
	case <-t.C:
	}
	c.log.Debug("rpc: replies still blocked after the cancel: the client does not read; aborting them", "timeout", c.drain)
	c.st.abortWrites()
	<-idle
}

// writeFailed reacts to a failed write: the client is gone, so every running
// request is cancelled and the connection closed.
func (c *serverConn) writeFailed(err error) {
	if c.st.closed.Load() {
		return // we closed it: not the client's doing
	}
	c.mu.Lock()
	first := c.writeErr == nil
	if first {
		c.writeErr = err
	}
	c.mu.Unlock()
	if first {
		c.log.Debug("rpc: write failed; cancelling every request of the connection", "err", err)
	}
	c.cancelAll()
	c.st.Close()
}

// libLogger sends jsonrpc2's own log lines to slog at debug level.
type libLogger struct{ log *slog.Logger }

func (l libLogger) Printf(format string, args ...any) {
	l.log.Debug(strings.TrimSpace(fmt.Sprintf(format, args...)))
}

// connKey keys the request's connection in its context, for Notify.
type connKey struct{}

// Notify sends a notification to the client of the request whose context is
// ctx (a Handler's), in the client's framing; it returns once it is written.
// A notification sent by an inline handler goes before anything read after
// its request is answered.
func Notify(ctx context.Context, method string, params any) error {
	jc, ok := ctx.Value(connKey{}).(*jsonrpc2.Conn)
	if !ok {
		return errors.New("rpc: Notify: not a request's context")
	}
	return jc.Notify(context.WithoutCancel(ctx), method, params)
}

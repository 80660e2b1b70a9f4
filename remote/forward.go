package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/spool"
)

// maxDaemonMessage caps a message from the daemon, which is trusted: its
// largest, an image window, is some 7 MB.
const maxDaemonMessage = 1 << 30

// Options configure Forward.
type Options struct {
	// Socket is the shared daemon's socket.
	Socket string
	// Start starts a daemon listening on Socket; Forward calls it when none
	// answers, then waits for the socket to answer.
	Start func() error
	// StartTimeout bounds that wait; 0 means 10 s.
	StartTimeout time.Duration
	// Trace, if set, logs every request of this client when its reply
	// passes: method, id, duration (as the client sees it, the socket
	// included) and the error code of a failure. It is --rpc.trace on the
	// client's side of a shared daemon, which traces its own log only when
	// it was started with --rpc.trace.
	Trace *slog.Logger
}

// ErrDaemonGone is returned by Forward when the daemon ended the connection
// before the client was done with it: killed, crashed or stopped while the
// client's input was open or requests were in flight.
var ErrDaemonGone = errors.New("the daemon ended the connection")

// Forward joins a client on in and out to the shared daemon, starting the
// daemon when none answers. It returns when the daemon ends the connection,
// or the client's input ends and the daemon has answered, with the exit code
// the daemon gives (LSP's: 1 after exit without shutdown, else 0). When the
// daemon goes away before that, every request in flight gets a -32603 reply
// from the forwarder, and the error wraps ErrDaemonGone.
func Forward(ctx context.Context, in io.Reader, out io.Writer, opts Options) (int, error) {
	conn, err := dialOrStart(ctx, opts)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	defer context.AfterFunc(ctx, func() { conn.Close() })()

	f := &forwarder{out: out, conn: conn, client: rpc.NewFrameReader(in, rpc.FramingAuto, 0), trace: opts.Trace}
	first, err := f.client.Read()
	if errors.Is(err, io.EOF) {
		return 0, nil // the client sent nothing
	}
	framing := f.client.Framing()
	hello, herr := clientHello(framing)
	if herr != nil {
		return 0, herr
	}
	if _, err := conn.Write(hello); err != nil {
		return 0, fmt.Errorf("writing to the daemon: %w", err)
	}
	go func() {
		f.toDaemon(framing, first, err)
		conn.CloseWrite() // the daemon sees the end of input and answers what is running
	}()
	err = f.toClient(framing)
	if ctx.Err() != nil {
		return f.code, nil // we were stopped
	}
	lost := f.pending.take()
	if f.exited || f.inputDone.Load() && len(lost) == 0 {
		return f.code, nil // the client is done: nothing is lost
	}
	for _, id := range lost {
		f.answerID(framing, id, &rpc.Error{Code: rpc.CodeInternalError,
			Message: "the shared daemon ended the connection before replying (it exited or was killed)"})
	}
	if err == nil {
		err = io.EOF
	}
	if len(lost) == 0 {
		return 1, fmt.Errorf("%w (%v) with the client's input still open", ErrDaemonGone, err)
	}
	return 1, fmt.Errorf("%w (%v) with the client's input still open and %d requests in flight, answered with -32603", ErrDaemonGone, err, len(lost))
}

// forwarder copies messages both ways, one frame at a time.
type forwarder struct {
	client *rpc.FrameReader
	conn   *net.UnixConn
	code   int  // from protocol.MethodExitCode; read after toClient returns
	exited bool // protocol.MethodExitCode came; read after toClient returns

	pending   inflight    // requests forwarded and not answered
	inputDone atomic.Bool // the client's input has ended
	trace     *slog.Logger

	omu sync.Mutex // one frame at a time on out: the daemon's, or ours
	out io.Writer
}

// toDaemon forwards the client's messages, starting with msg (and its read
// error err), until the client's input ends or a write fails. Input it
// cannot frame it answers itself, as the daemon would.
func (f *forwarder) toDaemon(framing rpc.Framing, msg []byte, err error) {
	for {
		var rerr *rpc.Error
		switch {
		case errors.As(err, &rerr):
			if f.answer(framing, rerr) != nil {
				return
			}
		case err != nil:
			f.inputDone.Store(errors.Is(err, io.EOF))
			return
		default:
			f.pending.sent(msg) // before the write: the reply may come at once
			if _, err := f.conn.Write(rpc.AppendFrame(nil, framing, msg)); err != nil {
				return
			}
		}
		msg, err = f.client.Read()
	}
}

// answer replies to the client with e, id null, as the daemon replies to
// input it cannot frame.
func (f *forwarder) answer(framing rpc.Framing, e *rpc.Error) error {
	return f.answerID(framing, json.RawMessage("null"), e)
}

// answerID replies to the client's request id with e.
func (f *forwarder) answerID(framing rpc.Framing, id json.RawMessage, e *rpc.Error) error {
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	body, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{e.Code, e.Message}})
	if err != nil {
		return err
	}
	return f.write(rpc.AppendFrame(nil, framing, body))
}

func (f *forwarder) write(frame []byte) error {
	f.omu.Lock()
	defer f.omu.Unlock()
	_, err := f.out.Write(frame)
	return err
}

// toClient forwards the daemon's messages to the client until the daemon
// ends the connection, keeping back the exit code it sends last.
func (f *forwarder) toClient(framing rpc.Framing) error {
	daemon := rpc.NewFrameReader(f.conn, framing, maxDaemonMessage)
	for {
		msg, err := daemon.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if code, ok := exitCode(msg); ok {
			f.code, f.exited = code, true
			continue
		}
		if req, ok := f.pending.answered(msg); ok && f.trace != nil {
			traceReply(f.trace, req, msg)
		}
		if err := f.write(rpc.AppendFrame(nil, framing, msg)); err != nil {
			return err
		}
	}
}

// traceReply logs req, answered by msg, as rpc.Trace logs a request.
func traceReply(log *slog.Logger, req request, msg []byte) {
	attrs := []any{"method", req.method, "id", string(req.id),
		"durationMs", float64(time.Since(req.sent).Microseconds()) / 1000}
	if code, ok := replyCode(msg); ok {
		attrs = append(attrs, "code", code)
	}
	log.Info("rpc", attrs...)
}

// exitCode reports whether msg is protocol.MethodExitCode, and its code.
func exitCode(msg []byte) (int, bool) {
	if !bytes.Contains(msg, []byte(protocol.MethodExitCode)) {
		return 0, false
	}
	var m struct {
		ID     json.RawMessage         `json:"id"`
		Method string                  `json:"method"`
		Params protocol.ExitCodeParams `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.ID != nil || m.Method != protocol.MethodExitCode {
		return 0, false
	}
	return m.Params.Code, true
}

// dialOrStart connects to the daemon, starting it if nothing answers.
func dialOrStart(ctx context.Context, opts Options) (*net.UnixConn, error) {
	dial := func() (*net.UnixConn, error) {
		c, err := net.Dial("unix", opts.Socket)
		if err != nil {
			return nil, err
		}
		return c.(*net.UnixConn), nil
	}
	if c, err := dial(); err == nil {
		return c, nil
	}
	if opts.Start == nil {
		return nil, fmt.Errorf("no daemon answers on %s", opts.Socket)
	}
	if err := opts.Start(); err != nil {
		return nil, fmt.Errorf("starting the daemon: %w", err)
	}
	wait := opts.StartTimeout
	if wait == 0 {
		wait = 10 * time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		c, err := dial()
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the daemon started but does not answer on %s: %w", opts.Socket, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// clientHello is the protocol.MethodClient notification with this process's
// cwd and environment, framed as the client frames.
func clientHello(framing rpc.Framing) ([]byte, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	env := make(map[string]string)
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": protocol.MethodClient,
		"params": protocol.ClientParams{Cwd: cwd, Env: env}})
	if err != nil {
		return nil, err
	}
	return rpc.AppendFrame(nil, framing, body), nil
}

// StartDaemon starts exe with args as a daemon of its own: a new session,
// no terminal, stdin and stdout on /dev/null and stderr appended to logPath.
// It does not wait for it.
func StartDaemon(exe string, args []string, logPath string) error {
	if err := spool.PrivateDir(filepath.Dir(logPath)); err != nil {
		return err
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(exe, args...)
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	// The daemon outlives us; reap it if it exits first.
	go cmd.Wait()
	return nil
}

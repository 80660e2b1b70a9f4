package rpc

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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// failAfter bounds every wait in these tests so that a bug fails the test
// instead of hanging it; no test asserts on speed.
const failAfter = 60 * time.Second

var framings = []Framing{FramingLines, FramingHeaders}

// socketPair returns two connected unix stream sockets.
func socketPair(t testing.TB) (*net.UnixConn, *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0) // no SOCK_CLOEXEC on macOS
	if err != nil {
		t.Fatalf("socketpair: %v", err)
	}
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "socketpair")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatalf("FileConn: %v", err)
		}
		return c.(*net.UnixConn)
	}
	return conn(fds[0]), conn(fds[1])
}

// testHandler is the Handler the server tests use.
type testHandler struct {
	started   chan string   // the method of each blocking handler, once it runs
	release   chan struct{} // closed to let "block" return
	cancelled chan string   // methods whose context was cancelled
	notified  chan string   // notifications received

	mu    sync.Mutex
	state string // set by "set", read by "get"
}

func newTestHandler() *testHandler {
	return &testHandler{
		started:   make(chan string, 16),
		release:   make(chan struct{}),
		cancelled: make(chan string, 16),
		notified:  make(chan string, 16),
	}
}

type unencodable struct{ C chan int }

func (h *testHandler) Handle(ctx context.Context, req *Request) (any, error) {
	if req.Notif {
		h.notified <- req.Method
	}
	switch req.Method {
	case "echo", "note":
		return map[string]any{"method": req.Method, "params": req.Params}, nil
	case "slow": // blocks until cancelled, then fails with the context's error
		h.started <- req.Method
		<-ctx.Done()
		h.cancelled <- req.Method
		return nil, fmt.Errorf("slow: %w", ctx.Err())
	case "slowResult": // blocks until cancelled, then answers with a result (as exec does)
		h.started <- req.Method
		<-ctx.Done()
		h.cancelled <- req.Method
		return map[string]any{"cancelled": true}, nil
	case "block": // blocks until released or cancelled
		h.started <- req.Method
		select {
		case <-h.release:
			return "released", nil
		case <-ctx.Done():
			h.cancelled <- req.Method
			return nil, ctx.Err()
		}
	case "progress": // reports for ms milliseconds: polled, or by Report when "report" is set
		var p struct {
			Ms     int  `json:"ms"`
			Report bool `json:"report"`
		}
		json.Unmarshal(req.Params, &p)
		prog := ProgressFrom(ctx)
		var n atomic.Int64
		if !p.Report {
			defer prog.Poll(func() any { return map[string]int64{"n": n.Add(1)} })()
		}
		for end := time.Now().Add(time.Duration(p.Ms) * time.Millisecond); time.Now().Before(end); {
			if p.Report {
				prog.Report(map[string]int64{"n": n.Add(1)})
			}
			time.Sleep(time.Millisecond)
		}
		return "done", nil
	case "big": // a result of as many bytes as the params say
		var n int
		json.Unmarshal(req.Params, &n)
		return strings.Repeat("x", n), nil
	case "panic":
		panic("boom")
	case "fail":
		return nil, fmt.Errorf("reading: %w", Errorf(codeApp, map[string]string{"path": "/x"}, "no such file: /x"))
	case "plain":
		return nil, errors.New("plain failure")
	case "cancelledErr":
		return nil, fmt.Errorf("op: %w", context.Canceled)
	case "unencodable":
		return unencodable{C: make(chan int)}, nil
	case "set":
		time.Sleep(10 * time.Millisecond) // widen the window a wrong (concurrent) order would show in
		h.mu.Lock()
		h.state = string(req.Params)
		h.mu.Unlock()
		return "ok", nil
	case "get":
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.state, nil
	}
	return nil, MethodNotFound(req.Method)
}

// served is a server on one end of a socket pair and a raw client on the other.
type served struct {
	t       *testing.T
	conn    *net.UnixConn
	framing Framing
	fr      *frameReader
	h       *testHandler
	logs    *testenv.Buffer
	cancel  context.CancelFunc
	done    chan error // ServeConn's result
}

// serve starts srv (Handler and Logger filled in when nil) on a socket pair.
func serve(t *testing.T, framing Framing, srv *Server) *served {
	t.Helper()
	s := &served{t: t, framing: framing, h: newTestHandler(), logs: &testenv.Buffer{}, done: make(chan error, 1)}
	if srv == nil {
		srv = &Server{}
	}
	if srv.Handler == nil {
		srv.Handler = s.h.Handle
	}
	if srv.Logger == nil {
		srv.Logger = slog.New(slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	client, server := socketPair(t)
	s.conn = client
	s.fr = newFrameReader(client, framing, 64<<20)
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() { s.done <- srv.ServeConn(ctx, server) }()
	t.Cleanup(func() {
		client.Close()
		cancel()
		select {
		case <-s.done:
		case <-time.After(failAfter):
			t.Errorf("ServeConn did not return")
		}
	})
	return s
}

// frame frames one message in s's framing.
func (s *served) frame(msg string) []byte {
	msg = versioned(msg)
	if s.framing == FramingHeaders {
		return []byte("Content-Length: " + strconv.Itoa(len(msg)) + "\r\n\r\n" + msg)
	}
	return []byte(msg + "\n")
}

// writeFilled writes to w the message head, n bytes c, tail, framed in
// s's framing, the n bytes from a buffer of 64 KiB: a big message's copies
// cost page faults under -race, for it and the race detector's shadow.
func (s *served) writeFilled(w io.Writer, head string, c byte, n int, tail string) error {
	var prefix string
	if s.framing == FramingHeaders {
		prefix = "Content-Length: " + strconv.Itoa(len(head)+n+len(tail)) + "\r\n\r\n"
	} else {
		tail += "\n"
	}
	if _, err := io.WriteString(w, prefix+head); err != nil {
		return err
	}
	fill := bytes.Repeat([]byte{c}, min(n, 64<<10))
	for ; n > 0; n -= len(fill) {
		if _, err := w.Write(fill[:min(n, len(fill))]); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, tail)
	return err
}

// versioned puts "jsonrpc":"2.0" first in a request object that has no
// "jsonrpc", so that cases need not spell it (the version check has cases of
// its own, sent with sendRaw).
func versioned(m string) string {
	if strings.HasPrefix(m, "{") && strings.Contains(m, `"method"`) && !strings.Contains(m, `"jsonrpc"`) {
		return `{"jsonrpc":"2.0",` + strings.TrimPrefix(m, "{")
	}
	return m
}

// send writes messages, each framed.
func (s *served) send(msgs ...string) {
	s.t.Helper()
	var b []byte
	for _, m := range msgs {
		b = append(b, s.frame(m)...)
	}
	s.sendRaw(b)
}

func (s *served) sendRaw(b []byte) {
	s.t.Helper()
	s.conn.SetWriteDeadline(time.Now().Add(failAfter))
	if _, err := s.conn.Write(b); err != nil {
		s.t.Fatalf("write: %v", err)
	}
}

// reply is a reply as the client reads it.
type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (r reply) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// recv reads the next reply.
func (s *served) recv() reply {
	s.t.Helper()
	s.conn.SetReadDeadline(time.Now().Add(failAfter))
	msg, err := s.fr.next()
	if err != nil {
		s.t.Fatalf("reading a reply: %v", err)
	}
	var r reply
	if err := json.Unmarshal(msg, &r); err != nil {
		s.t.Fatalf("reply %q is not JSON: %v", msg, err)
	}
	if r.JSONRPC != "2.0" {
		s.t.Errorf("reply %s: jsonrpc is not 2.0", msg)
	}
	if (r.Error == nil) == (r.Result == nil) {
		s.t.Errorf("reply %s: wants exactly one of result and error", msg)
	}
	return r
}

// wantStarted waits until the blocking handlers of methods run, in any order.
func (s *served) wantStarted(methods ...string) {
	s.t.Helper()
	want := map[string]int{}
	for _, m := range methods {
		want[m]++
	}
	for range methods {
		select {
		case m := <-s.h.started:
			if want[m] == 0 {
				s.t.Fatalf("started %q, want %v", m, methods)
			}
			want[m]--
		case <-time.After(failAfter):
			s.t.Fatalf("%v never started", methods)
		}
	}
}

// wantServeResult waits for ServeConn to return.
func (s *served) wantServeResult() error {
	s.t.Helper()
	select {
	case err := <-s.done:
		s.done <- err // for Cleanup
		return err
	case <-time.After(failAfter):
		s.t.Fatalf("ServeConn did not return")
		return nil
	}
}

func wantID(t *testing.T, r reply, id string) {
	t.Helper()
	if string(r.ID) != id {
		t.Fatalf("reply %s: id %s, want %s", r, r.ID, id)
	}
}

func wantCode(t *testing.T, r reply, code int64) {
	t.Helper()
	if r.Error == nil || r.Error.Code != code {
		t.Fatalf("reply %s: want error code %d", r, code)
	}
}

func wantResult(t *testing.T, r reply, result string) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("reply %s: want result %s", r, result)
	}
	var got, want any
	if err := json.Unmarshal(r.Result, &got); err != nil {
		t.Fatalf("result %s: %v", r.Result, err)
	}
	if err := json.Unmarshal([]byte(result), &want); err != nil {
		t.Fatalf("bad want %s: %v", result, err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("reply %s: result %s, want %s", r, r.Result, result)
	}
}

// codeApp is an application's error code, as a handler would choose one.
const codeApp int64 = -32001

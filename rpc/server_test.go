package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

func TestRepliesNameTheirRequest(t *testing.T) {
	t.Parallel()
	for _, framing := range framings {
		t.Run(framing.String(), func(t *testing.T) {
			s := serve(t, framing, nil)
			ids := []string{`1`, `"1"`, `0`, `""`, `"a b"`, `9223372036854775807`}
			var msgs []string
			for i, id := range ids {
				msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"echo","params":{"n":%d}}`, id, i))
			}
			s.send(msgs...) // pipelined: replies may come in any order
			got := map[string]reply{}
			for range ids {
				r := s.recv()
				got[string(r.ID)] = r
			}
			for i, id := range ids {
				r, ok := got[id]
				if !ok {
					t.Fatalf("no reply for id %s; got %v", id, got)
				}
				wantResult(t, r, fmt.Sprintf(`{"method":"echo","params":{"n":%d}}`, i))
			}
		})
	}
}

func TestBadInputThenGoodRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		input  string // sent framed, then a good request with id 99
		code   int64  // 0: no reply expected before the good one
		id     string
		inText string // in the error message
	}{
		{"truncated JSON", `{"id":1,`, CodeParseError, `null`, "parse error"},
		{"not JSON", `hello world`, CodeParseError, `null`, "parse error"},
		{"two values", `{"id":1,"method":"echo"} {}`, CodeParseError, `null`, "parse error"},
		{"batch", `[1,2]`, CodeInvalidRequest, `null`, "batch"},
		{"empty batch", `[]`, CodeInvalidRequest, `null`, "batch"},
		{"number", `5`, CodeInvalidRequest, `null`, "not a JSON object"},
		{"string", `"x"`, CodeInvalidRequest, `null`, "not a JSON object"},
		{"empty object", `{}`, CodeInvalidRequest, `null`, `no "method"`},
		{"id only", `{"id":3}`, CodeInvalidRequest, `3`, `no "method"`},
		{"method a number", `{"method":5}`, CodeInvalidRequest, `null`, `"method" must be a string`},
		{"method a number with id", `{"id":7,"method":5}`, CodeInvalidRequest, `7`, `"method" must be a string`},
		{"method an array", `{"id":"s","method":["x"]}`, CodeInvalidRequest, `"s"`, `"method" must be a string`},
		{"id an object", `{"id":{},"method":"echo"}`, CodeInvalidRequest, `null`, `"id" must be`},
		{"id a boolean", `{"id":true,"method":"echo"}`, CodeInvalidRequest, `null`, `"id" must be`},
		{"method and result", `{"id":4,"method":"echo","result":1}`, CodeInvalidRequest, `4`, "both"},
		{"method and result in other case", `{"id":4,"method":"echo","Result":1}`, CodeInvalidRequest, `4`, "invalid request"},
		{"response: dropped", `{"id":1,"result":5}`, 0, ``, ``},
		{"failing notification: no reply", `{"method":"fail"}`, 0, ``, ``},
		{"unknown notification: no reply", `{"method":"nope","params":[1]}`, 0, ``, ``},
		{"cancel of an unknown id", `{"method":"$/cancelRequest","params":{"id":12345}}`, 0, ``, ``},
		{"cancel without params", `{"method":"$/cancelRequest"}`, 0, ``, ``},
		{"version 1.0", `{"jsonrpc":"1.0","id":5,"method":"echo"}`, CodeInvalidRequest, `5`, `"jsonrpc" must be "2.0"`},
		{"version a number", `{"jsonrpc":2.0,"id":6,"method":"echo"}`, CodeInvalidRequest, `6`, `"jsonrpc" must be "2.0"`},
		{"version 1.0, a notification", `{"jsonrpc":"1.0","method":"echo"}`, CodeInvalidRequest, `null`, `"jsonrpc" must be "2.0"`},
		// "jsonrpc" in a param keeps versioned from adding the member.
		{"no version", `{"id":8,"method":"echo","params":["jsonrpc"]}`, CodeInvalidRequest, `8`, `"jsonrpc" must be "2.0"`},
	}
	for _, framing := range framings {
		for _, tt := range tests {
			t.Run(framing.String()+"/"+tt.name, func(t *testing.T) {
				s := serve(t, framing, nil)
				s.send(tt.input, `{"jsonrpc":"2.0","id":99,"method":"echo"}`)
				if tt.code != 0 {
					r := s.recv()
					wantCode(t, r, tt.code)
					wantID(t, r, tt.id)
					if !strings.Contains(r.Error.Message, tt.inText) {
						t.Errorf("message %q does not contain %q", r.Error.Message, tt.inText)
					}
				}
				r := s.recv()
				wantID(t, r, `99`)
				wantResult(t, r, `{"method":"echo","params":null}`)
			})
		}
	}
}

func TestHeaderGarbage(t *testing.T) {
	t.Parallel()
	good := func(id int) string {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo"}`, id)
		return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg)
	}
	tests := []struct {
		name    string
		garbage string
		errors  int // -32700 replies before the good one
	}{
		{"a line that is not a header", "hello world\r\n", 1},
		{"several garbage lines", "hello\r\nworld\r\n{\"id\":5}\r\n", 1},
		{"garbage before the header on its line", "}}", 1},
		{"bad Content-Length", "Content-Length: abc\r\n\r\n{}", 1},
		{"negative Content-Length", "Content-Length: -3\r\n\r\n{}", 1},
		{"no Content-Length", "Content-Type: x\r\n\r\n{}", 1},
		{"a JSON line in header mode", `{"jsonrpc":"2.0","id":5,"method":"echo"}` + "\r\n", 1},
		{"stray newlines: not garbage", "\r\n\n\r\n", 0},
		{"empty body", "Content-Length: 0\r\n\r\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, FramingHeaders, nil)
			s.sendRaw([]byte(good(1))) // decides header mode
			wantID(t, s.recv(), `1`)
			s.sendRaw([]byte(tt.garbage + good(2)))
			for range tt.errors {
				r := s.recv()
				wantID(t, r, `null`)
				wantCode(t, r, CodeParseError)
			}
			r := s.recv()
			wantID(t, r, `2`)
			wantResult(t, r, `{"method":"echo","params":null}`)
		})
	}
}

func TestHeaderNamesAndDetection(t *testing.T) {
	t.Parallel()
	msg := `{"jsonrpc":"2.0","id":1,"method":"echo"}`
	tests := []struct {
		name  string
		input string
	}{
		{"canonical", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg)},
		{"lower case, other header first", fmt.Sprintf("content-type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: %d\r\n\r\n%s", len(msg), msg)},
		{"upper case, bare LF, no space", fmt.Sprintf("CONTENT-LENGTH:%d\n\n%s", len(msg), msg)},
		{"leading blank lines", fmt.Sprintf("\r\n\r\n  Content-Length: %d\r\n\r\n%s", len(msg), msg)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serve(t, FramingHeaders, nil) // replies must come back with headers
			s.sendRaw([]byte(tt.input))
			wantID(t, s.recv(), `1`)
		})
	}
	t.Run("lines: blank lines, CRLF, spaces", func(t *testing.T) {
		s := serve(t, FramingLines, nil)
		s.sendRaw([]byte("\n\r\n  " + msg + "  \r\n\n" + `{"jsonrpc":"2.0","id":2,"method":"echo"}`))
		wantID(t, s.recv(), `1`)
		// The last line has no newline: the end of the input ends it.
		if err := s.conn.CloseWrite(); err != nil {
			t.Fatal(err)
		}
		wantID(t, s.recv(), `2`)
	})
}

// TestOversizeMessage: a message past the cap is dropped unread and
// answered -32600, and the next one is served. The default cap (16 MiB) in
// headers framing, whose reader skips the body it drops; in lines framing a
// cap of 1 MiB in the quick run (the same path: the line is read up to the
// cap, and its 16 MiB cost 0.35 CPU-seconds under -race), the default with
// TOOLD_LONG=1.
func TestOversizeMessage(t *testing.T) {
	t.Parallel()
	for _, framing := range framings {
		t.Run(framing.String(), func(t *testing.T) {
			t.Parallel()
			srv, size := &Server{}, 20<<20
			if framing == FramingLines && !testenv.Long() {
				srv.MaxMessageBytes, size = 1<<20, 5<<18
			}
			s := serve(t, framing, srv)
			written := make(chan error, 1)
			go func() { // the server writes while we write: never both block
				written <- s.writeFilled(s.conn, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":"`, 'A', size, `"}}`)
			}()
			r := s.recv()
			wantCode(t, r, CodeInvalidRequest)
			wantID(t, r, `null`)
			if err := <-written; err != nil {
				t.Fatalf("write: %v", err)
			}
			s.send(`{"jsonrpc":"2.0","id":2,"method":"echo"}`)
			wantID(t, s.recv(), `2`)
		})
	}
}

func TestMaxMessageBytesBoundary(t *testing.T) {
	t.Parallel()
	const max = 200
	msgOf := func(n int) string { // a request of exactly n bytes
		head := `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":"`
		tail := `"}}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	for _, framing := range framings {
		for _, tt := range []struct {
			size int
			ok   bool
		}{{max, true}, {max + 1, false}} {
			t.Run(fmt.Sprintf("%s/%d", framing, tt.size), func(t *testing.T) {
				s := serve(t, framing, &Server{MaxMessageBytes: max})
				s.send(msgOf(tt.size))
				r := s.recv()
				if tt.ok {
					wantID(t, r, `1`)
				} else {
					wantCode(t, r, CodeInvalidRequest)
				}
				s.send(`{"id":2,"method":"echo"}`)
				wantID(t, s.recv(), `2`)
			})
		}
	}
}

func TestSlowDoesNotDelayFast(t *testing.T) {
	t.Parallel()
	for _, framing := range framings {
		t.Run(framing.String(), func(t *testing.T) {
			s := serve(t, framing, nil)
			s.send(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
			s.wantStarted("slow")
			s.send(`{"jsonrpc":"2.0","id":2,"method":"echo"}`)
			wantID(t, s.recv(), `2`) // while 1 still runs
			s.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
			r := s.recv()
			wantID(t, r, `1`)
			wantCode(t, r, CodeRequestCancelled)
		})
	}
}

func TestCancelRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		id     string
		want   func(t *testing.T, r reply)
	}{
		{"error after cancel: -32800", "slow", `1`, func(t *testing.T, r reply) { wantCode(t, r, CodeRequestCancelled) }},
		{"string id", "slow", `"abc"`, func(t *testing.T, r reply) { wantCode(t, r, CodeRequestCancelled) }},
		{"result after cancel is sent", "slowResult", `2`, func(t *testing.T, r reply) { wantResult(t, r, `{"cancelled":true}`) }},
	}
	for _, framing := range framings {
		for _, tt := range tests {
			t.Run(framing.String()+"/"+tt.name, func(t *testing.T) {
				s := serve(t, framing, nil)
				s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, tt.id, tt.method))
				s.wantStarted(tt.method)
				// Cancels that name no running request change nothing: the
				// echo answers while the request still runs.
				s.send(
					`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":999}}`,
					`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"999"}}`,
					`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{}}}`,
					`{"jsonrpc":"2.0","method":"$/cancelRequest","params":[1]}`,
					`{"jsonrpc":"2.0","id":50,"method":"echo"}`,
				)
				wantID(t, s.recv(), `50`)
				s.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%s}}`, tt.id))
				r := s.recv()
				wantID(t, r, tt.id)
				tt.want(t, r)
				// A second cancel of the finished request is ignored.
				s.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%s}}`, tt.id),
					`{"jsonrpc":"2.0","id":51,"method":"echo"}`)
				wantID(t, s.recv(), `51`)
			})
		}
	}
}

func TestCancelRequestAsRequest(t *testing.T) {
	t.Parallel()
	s := serve(t, FramingLines, nil)
	s.send(`{"id":1,"method":"slow"}`)
	s.wantStarted("slow")
	s.send(`{"id":2,"method":"$/cancelRequest","params":{"id":1}}`)
	got := map[string]reply{}
	for range 2 {
		r := s.recv()
		got[string(r.ID)] = r
	}
	wantCode(t, got["1"], CodeRequestCancelled)
	wantResult(t, got["2"], `null`)
}

func TestPanic(t *testing.T) {
	t.Parallel()
	for _, framing := range framings {
		t.Run(framing.String(), func(t *testing.T) {
			s := serve(t, framing, nil)
			s.send(`{"jsonrpc":"2.0","id":1,"method":"panic"}`)
			r := s.recv()
			wantID(t, r, `1`)
			wantCode(t, r, CodeInternalError)
			if !strings.Contains(r.Error.Message, "boom") {
				t.Errorf("message %q does not say what panicked", r.Error.Message)
			}
			s.send(`{"jsonrpc":"2.0","id":2,"method":"echo"}`)
			wantID(t, s.recv(), `2`)
			logs := s.logs.String()
			for _, want := range []string{"level=ERROR", "handler panicked", "stack=", "helpers_test.go"} { // the stack names the panicking handler
				if !strings.Contains(logs, want) {
					t.Errorf("log lacks %q:\n%s", want, logs)
				}
			}
		})
	}
}

func TestHandlerErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method  string
		code    int64
		message string
		data    string
	}{
		{"fail", codeApp, "no such file: /x", `{"path":"/x"}`},
		{"plain", CodeInternalError, "plain failure", ``},
		{"cancelledErr", CodeRequestCancelled, "request cancelled", ``},
		{"nope", CodeMethodNotFound, "method not found: nope", `{"method":"nope"}`},
		{"unencodable", CodeInternalError, "cannot encode the result", ``},
	}
	for _, framing := range framings {
		for _, tt := range tests {
			t.Run(framing.String()+"/"+tt.method, func(t *testing.T) {
				s := serve(t, framing, nil)
				s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q}`, tt.method))
				r := s.recv()
				wantID(t, r, `1`)
				wantCode(t, r, tt.code)
				if !strings.Contains(r.Error.Message, tt.message) {
					t.Errorf("message %q, want it to contain %q", r.Error.Message, tt.message)
				}
				if string(r.Error.Data) != tt.data {
					t.Errorf("data %s, want %s", r.Error.Data, tt.data)
				}
			})
		}
	}
}

// TestAnyIDIsAnswered sends ids jsonrpc2 cannot hold itself (negative,
// fractional, huge, null): each request is answered with its id as written,
// and $/cancelRequest reaches it.
func TestAnyIDIsAnswered(t *testing.T) {
	t.Parallel()
	for _, framing := range framings {
		t.Run(framing.String(), func(t *testing.T) {
			s := serve(t, framing, nil)
			for _, id := range []string{`-1`, `1.5`, `-0`, `1e3`, `99999999999999999999`, `null`} {
				s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"echo"}`)
				r := s.recv()
				wantID(t, r, id)
				wantResult(t, r, `{"method":"echo","params":null}`)
			}
			s.send(`{"jsonrpc":"2.0","id":-7,"method":"slow"}`)
			<-s.h.started
			s.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":-7}}`)
			r := s.recv()
			wantID(t, r, `-7`)
			wantCode(t, r, CodeRequestCancelled)
		})
	}
}

func TestNotificationsGetNoReply(t *testing.T) {
	t.Parallel()
	s := serve(t, FramingLines, nil)
	s.send(`{"jsonrpc":"2.0","method":"note","params":{"a":1}}`,
		`{"jsonrpc":"2.0","method":"panic"}`,
		`{"jsonrpc":"2.0","method":"fail"}`,
		`{"jsonrpc":"2.0","method":"plain"}`,
		`{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	wantID(t, s.recv(), `1`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	wantID(t, s.recv(), `2`) // nothing else came in between
	got := map[string]bool{}
	for range 4 {
		got[<-s.h.notified] = true
	}
	for _, m := range []string{"note", "panic", "fail", "plain"} {
		if !got[m] {
			t.Errorf("notification %s was not handled; got %v", m, got)
		}
	}
}

func TestInlineRunsInOrder(t *testing.T) {
	t.Parallel()
	inline := func(m string) bool { return m == "set" }
	for _, framing := range framings {
		t.Run(framing.String()+"/request", func(t *testing.T) {
			s := serve(t, framing, &Server{Inline: inline})
			s.send(`{"id":1,"method":"set","params":"v1"}`, `{"id":2,"method":"get"}`) // pipelined
			r := s.recv()
			wantID(t, r, `1`) // set answers before get is even read
			r = s.recv()
			wantID(t, r, `2`)
			wantResult(t, r, `"\"v1\""`)
		})
		t.Run(framing.String()+"/notification", func(t *testing.T) {
			s := serve(t, framing, &Server{Inline: inline})
			s.send(`{"method":"set","params":"v2"}`, `{"id":3,"method":"get"}`)
			r := s.recv()
			wantID(t, r, `3`)
			wantResult(t, r, `"\"v2\""`)
		})
	}
}

// TestAdmitRunsInOrder: Admit sees the requests that are not inline in the
// order they were sent, on the read loop, before an inline request that
// follows them runs; the handler gets Admit's context, and done comes after
// the handler has returned. Nothing orders request 1's done against request
// 2's admission (request 1 runs in its own goroutine while the loop reads on),
// so the test asserts the order of the events each promise ties, not one
// whole sequence.
func TestAdmitRunsInOrder(t *testing.T) {
	t.Parallel()
	type key struct{}
	var mu sync.Mutex
	var log []string
	note := func(s string) { mu.Lock(); log = append(log, s); mu.Unlock() }
	for _, framing := range framings {
		mu.Lock()
		log = nil
		mu.Unlock()
		h := newTestHandler()
		s := serve(t, framing, &Server{
			Inline: func(m string) bool { return m == "set" },
			Handler: func(ctx context.Context, req *Request) (any, error) {
				if req.Method == "set" {
					note("set")
					return nil, nil
				}
				if ctx.Value(key{}) != req.ID.String() {
					return nil, Errorf(CodeInternalError, nil, "no admission for %s", req.ID.String())
				}
				return h.Handle(ctx, req)
			},
			Admit: func(ctx context.Context, req *Request) (context.Context, func()) {
				note("admit " + req.ID.String())
				return context.WithValue(ctx, key{}, req.ID.String()), func() { note("done " + req.ID.String()) }
			},
		})
		s.send(`{"id":1,"method":"echo","params":1}`, `{"id":2,"method":"echo","params":2}`, `{"id":3,"method":"set"}`)
		for range 3 {
			if r := s.recv(); r.Error != nil {
				t.Fatalf("%s: %+v", framing, r.Error)
			}
		}
		testenv.WaitFor(t, failAfter, "five lines logged", func() bool { mu.Lock(); defer mu.Unlock(); return len(log) == 5 })
		mu.Lock()
		got := slices.Clone(log)
		mu.Unlock()
		checkAdmitOrder(t, framing.String(), got)
	}
}

// checkAdmitOrder checks the events of TestAdmitRunsInOrder against what
// Server.Admit promises: each event once; admissions in the order sent;
// each done after its admission; the inline set after every admission of a
// request sent before it.
func checkAdmitOrder(t *testing.T, framing string, got []string) {
	t.Helper()
	at := map[string]int{}
	for i, e := range got {
		if _, dup := at[e]; dup {
			t.Errorf("%s: %q twice: %v", framing, e, got)
		}
		at[e] = i
	}
	for _, e := range []string{"admit 1", "admit 2", "done 1", "done 2", "set"} {
		if _, ok := at[e]; !ok {
			t.Fatalf("%s: no %q: %v", framing, e, got)
		}
	}
	for _, before := range [][2]string{
		{"admit 1", "admit 2"}, // admitted in the order sent
		{"admit 1", "done 1"},  // done after the handler, so after admission
		{"admit 2", "done 2"},
		{"admit 2", "set"}, // the inline request judged after what came before it
	} {
		if at[before[0]] > at[before[1]] {
			t.Errorf("%s: %s after %s: %v", framing, before[0], before[1], got)
		}
	}
}

func TestEndOfInputDrains(t *testing.T) {
	t.Parallel()
	for _, framing := range framings {
		t.Run(framing.String()+"/finishes within the drain timeout", func(t *testing.T) {
			s := serve(t, framing, &Server{DrainTimeout: time.Hour})
			s.send(`{"id":1,"method":"block"}`)
			s.wantStarted("block")
			if err := s.conn.CloseWrite(); err != nil {
				t.Fatal(err)
			}
			close(s.h.release)
			r := s.recv()
			wantID(t, r, `1`)
			wantResult(t, r, `"released"`)
			if err := s.wantServeResult(); err != nil {
				t.Errorf("ServeConn: %v, want nil", err)
			}
			if _, err := s.fr.next(); err != io.EOF {
				t.Errorf("after the last reply: %v, want EOF (connection closed)", err)
			}
		})
		t.Run(framing.String()+"/cancelled after the drain timeout", func(t *testing.T) {
			// The cancelled requests have a minute to answer (CancelTimeout),
			// not the drain's millisecond, in which a loaded machine did not
			// always write their replies before the server aborted them
			// (TestDrainAbortsBlockedReplies checks the abort).
			s := serve(t, framing, &Server{DrainTimeout: time.Millisecond, CancelTimeout: time.Minute})
			s.send(`{"id":1,"method":"slow"}`, `{"id":2,"method":"slowResult"}`)
			s.wantStarted("slow", "slowResult")
			if err := s.conn.CloseWrite(); err != nil {
				t.Fatal(err)
			}
			got := map[string]reply{}
			for range 2 {
				r := s.recv()
				got[string(r.ID)] = r
			}
			wantCode(t, got["1"], CodeRequestCancelled)
			wantResult(t, got["2"], `{"cancelled":true}`)
			if err := s.wantServeResult(); err != nil {
				t.Errorf("ServeConn: %v, want nil", err)
			}
		})
	}
}

func TestWriteErrorCancelsAll(t *testing.T) {
	t.Parallel()
	s := serve(t, FramingLines, &Server{DrainTimeout: time.Hour})
	s.send(`{"id":1,"method":"slow"}`, `{"id":2,"method":"block"}`)
	s.wantStarted("slow", "block")
	s.conn.Close() // the client is gone: input ends, the drain would wait an hour
	close(s.h.release)
	// block's reply fails to write, which cancels slow.
	select {
	case m := <-s.h.cancelled:
		if m != "slow" {
			t.Errorf("cancelled %q", m)
		}
	case <-time.After(failAfter):
		t.Fatal("a failed write did not cancel the running request")
	}
	err := s.wantServeResult()
	if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("ServeConn: %v, want the write error", err)
	}
}

func TestContextCancelEndsConn(t *testing.T) {
	t.Parallel()
	s := serve(t, FramingLines, nil)
	s.send(`{"id":1,"method":"slow"}`)
	s.wantStarted("slow")
	s.cancel()
	if err := s.wantServeResult(); !errors.Is(err, context.Canceled) {
		t.Errorf("ServeConn: %v, want context.Canceled", err)
	}
	if m := <-s.h.cancelled; m != "slow" {
		t.Errorf("cancelled %q", m)
	}
	// rwc is closed: the client sees the end of its input (the cancelled
	// request's reply may or may not have made it before the close).
	for {
		if _, err := s.fr.next(); err != nil {
			if err != io.EOF {
				t.Errorf("client read: %v, want EOF", err)
			}
			break
		}
	}
}

func TestServeConnWithoutHandler(t *testing.T) {
	t.Parallel()
	_, server := socketPair(t)
	if err := (&Server{}).ServeConn(context.Background(), server); err == nil {
		t.Fatal("want an error")
	}
}

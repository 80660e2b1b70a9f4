package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"syscall"
	"testing"
	"time"
)

// clientServer runs a Server on one end of a socket pair and a Client on the
// other.
func clientServer(t *testing.T, framing Framing) (*Client, *testHandler) {
	t.Helper()
	h := newTestHandler()
	srv := &Server{Handler: h.Handle, Logger: slog.New(slog.DiscardHandler)}
	a, b := socketPair(t)
	done := make(chan error, 1)
	go func() { done <- srv.ServeConn(context.Background(), b) }()
	c := NewClient(context.Background(), a, framing)
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		select {
		case err := <-done:
			// A late reply (the -32800 of a cancelled call) may meet the
			// closed socket: that is the client going away, not a fault.
			if err != nil && !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("ServeConn: %v", err)
			}
		case <-time.After(failAfter):
			t.Errorf("ServeConn did not return")
		}
	})
	return c, h
}

func TestClient(t *testing.T) {
	t.Parallel()
	for _, framing := range framings {
		t.Run(framing.String(), func(t *testing.T) {
			c, h := clientServer(t, framing)
			ctx := context.Background()

			var got struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if err := c.Call(ctx, "echo", map[string]int{"n": 1}, &got); err != nil {
				t.Fatalf("echo: %v", err)
			}
			if got.Method != "echo" || string(got.Params) != `{"n":1}` {
				t.Errorf("echo: %+v", got)
			}

			err := c.Call(ctx, "fail", nil, nil)
			var re *Error
			if !errors.As(err, &re) || re.Code != codeApp || re.Message != "no such file: /x" {
				t.Fatalf("fail: %v, want a -32001 *Error", err)
			}
			if data, ok := re.Data.(json.RawMessage); !ok || string(data) != `{"path":"/x"}` {
				t.Errorf("fail: data %#v", re.Data)
			}

			if err := c.Call(ctx, "nope", nil, nil); !errors.As(err, &re) || re.Code != CodeMethodNotFound {
				t.Errorf("nope: %v", err)
			}

			if err := c.Notify(ctx, "note", nil); err != nil {
				t.Fatalf("Notify: %v", err)
			}
			if m := <-h.notified; m != "note" {
				t.Errorf("notified %q", m)
			}

			// A cancelled Call tells the server, whose handler is cancelled.
			cctx, cancel := context.WithCancel(ctx)
			errc := make(chan error, 1)
			go func() { errc <- c.Call(cctx, "slow", nil, nil) }()
			<-h.started
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled Call: %v", err)
			}
			select {
			case <-h.cancelled:
			case <-time.After(failAfter):
				t.Fatal("the server's handler was not cancelled")
			}
			// The late -32800 reply is dropped; the connection goes on.
			if err := c.Call(ctx, "echo", nil, nil); err != nil {
				t.Errorf("after cancel: %v", err)
			}
		})
	}
}

func TestClientClosed(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	c := NewClient(context.Background(), a, FramingLines)
	b.Close() // the server went away
	select {
	case <-c.Done():
	case <-time.After(failAfter):
		t.Fatal("Done not closed at the end of the input")
	}
	if err := c.Call(context.Background(), "echo", nil, nil); err == nil {
		t.Error("Call on a closed connection succeeded")
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// The client drops what it cannot use (bad JSON, a reply without an id) and
// goes on.
func TestClientDropsBadInput(t *testing.T) {
	t.Parallel()
	a, b := socketPair(t)
	c := NewClient(context.Background(), a, FramingLines)
	defer c.Close()
	go func() {
		fr := newFrameReader(b, FramingLines, DefaultMaxMessageBytes)
		msg, err := fr.next()
		if err != nil {
			return
		}
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(msg, &req)
		io.WriteString(b, "garbage\n[1]\n"+`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`+"\n"+
			`{"jsonrpc":"2.0","id":1,"error":5}`+"\n"+
			`{"jsonrpc":"2.0","method":"serverCall","id":"s1"}`+"\n"+
			`{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":"ok"}`+"\n")
		// The client answers the server's call with -32601.
		msg, _ = fr.next()
		if !strings.Contains(string(msg), "-32601") {
			b.Write([]byte("unexpected\n"))
		}
	}()
	var got string
	if err := c.Call(context.Background(), "x", nil, &got); err != nil || got != "ok" {
		t.Fatalf("Call: %q, %v", got, err)
	}
}

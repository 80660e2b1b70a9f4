package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// fuzzConn reads fixed input and records what is written.
type fuzzConn struct {
	r  io.Reader
	mu sync.Mutex
	w  bytes.Buffer
}

func (c *fuzzConn) Read(p []byte) (int, error) { return c.r.Read(p) }
func (c *fuzzConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.w.Write(p)
}
func (c *fuzzConn) Close() error { return nil }

func (c *fuzzConn) output() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.w.Bytes())
}

// checkReplies checks that out is a sequence of framed JSON-RPC replies.
func checkReplies(t *testing.T, out []byte) {
	t.Helper()
	fr := newFrameReader(bytes.NewReader(out), FramingAuto, 1<<30)
	for {
		msg, err := fr.next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		var r struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(msg, &r); err != nil || r.JSONRPC != "2.0" || r.ID == nil || (r.Result == nil) == (r.Error == nil) {
			t.Fatalf("not a reply: %q (%v)", msg, err)
		}
	}
}

func FuzzStream(f *testing.F) {
	seeds := []string{
		"",
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":[1,2]}}` + "\n",
		`{"id":"x","method":"inline"}` + "\n" + `{"method":"$/cancelRequest","params":{"id":"x"}}` + "\n",
		"[1,2]\n5\n{}\n{\"method\":5}\n{\"id\":{},\"method\":\"x\"}\n{\"id\":-1,\"method\":\"x\"}\n",
		"{\"id\":1,\"result\":null}\n{\"id\":1,\"error\":5}\n{\"id\":1,\"method\":\"x\",\"ERROR\":1}\n",
		"Content-Length: 40\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"echo"}`,
		"content-length: 2\r\ncontent-type: x\r\n\r\n{}junk\r\nContent-Length: 5\r\n\r\n[1,2]",
		"Content-Length: 99999\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 2000\r\n\r\n" + strings.Repeat("x", 2000) + "Content-Length: 2\r\n\r\n{}",
		`{"id":1,"method":"echo","params":"` + strings.Repeat("y", 2000) + "\"}\n{\"id\":2,\"method\":\"echo\"}",
		"\xff\xfe\x00{\n\r\n\r",
		"a:\r\n\r\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	discard := slog.New(slog.DiscardHandler)
	f.Fuzz(func(t *testing.T, data []byte) {
		// The stream alone: it hands on only requests, answers the rest, and
		// ends with io.EOF.
		conn := &fuzzConn{r: bytes.NewReader(data)}
		st := newStream(conn, FramingAuto, 1<<10, true, discard)
		for {
			var v json.RawMessage
			err := st.ReadObject(&v)
			if err != nil {
				if err != io.EOF {
					t.Fatalf("ReadObject: %v, want io.EOF", err)
				}
				break
			}
			if !json.Valid(v) || !bytes.Contains(v, []byte(`"method"`)) {
				t.Fatalf("handed on %q", v)
			}
		}
		checkReplies(t, conn.output())

		// The whole server on the same input.
		conn = &fuzzConn{r: bytes.NewReader(data)}
		srv := &Server{
			Handler: func(ctx context.Context, req *Request) (any, error) {
				var p map[string]any
				if err := DecodeParams(req.Params, &p); err != nil {
					return nil, err
				}
				if req.Method == "echo" || req.Method == "inline" {
					return req.Params, nil
				}
				return nil, MethodNotFound(req.Method)
			},
			Inline:          func(m string) bool { return m == "inline" },
			MaxMessageBytes: 1 << 10,
			DrainTimeout:    time.Minute,
			Logger:          discard,
		}
		if err := srv.ServeConn(context.Background(), conn); err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("ServeConn: %v", err)
		}
		checkReplies(t, conn.output())
	})
}

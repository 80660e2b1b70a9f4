package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// message is any message the server writes.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			N int64 `json:"n"`
		} `json:"value"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int64 `json:"code"`
	} `json:"error"`
}

// recvMessage reads the next message, notification or reply.
func (s *served) recvMessage() message {
	s.t.Helper()
	s.conn.SetReadDeadline(time.Now().Add(failAfter))
	raw, err := s.fr.next()
	if err != nil {
		s.t.Fatalf("reading: %v", err)
	}
	var m message
	if err := json.Unmarshal(raw, &m); err != nil {
		s.t.Fatalf("%q is not JSON: %v", raw, err)
	}
	return m
}

// progressUntilReply reads notifications up to the reply of id, checking that
// each carries token and counts up, and returns how many came.
func (s *served) progressUntilReply(id, token string) (int, message) {
	s.t.Helper()
	var n int
	last := int64(0)
	for {
		m := s.recvMessage()
		if m.Method == "" {
			if string(m.ID) != id {
				s.t.Fatalf("reply to %s, want %s", m.ID, id)
			}
			return n, m
		}
		if m.Method != ProgressMethod {
			s.t.Fatalf("notification %q, want %s", m.Method, ProgressMethod)
		}
		if string(m.Params.Token) != token {
			s.t.Fatalf("token %s, want %s", m.Params.Token, token)
		}
		if m.Params.Value.N <= last {
			s.t.Fatalf("progress %d after %d: out of order or repeated", m.Params.Value.N, last)
		}
		last = m.Params.Value.N
		n++
	}
}

func TestProgress(t *testing.T) {
	t.Parallel() // its cases wait beside the package's other waits
	// The reporting cases run 1.1 s in the quick run (reports at 0, 0.5
	// and 1 s when polled, at 0.5 and 1 s when reported, give or take one),
	// 1.6 s with TOOLD_LONG=1 (one more each).
	ms, more := testenv.Size(1100, 1600), testenv.Size(0, 1)
	cases := []struct {
		name, params, token string
		min, max            int // notifications before the reply
	}{
		{"polled string token", fmt.Sprintf(`{"workDoneToken":"t-1","ms":%d}`, ms), `"t-1"`, 2 + more, 4 + more},
		{"reported number token", fmt.Sprintf(`{"workDoneToken": 7 ,"ms":%d,"report":true}`, ms), `7`, 1 + more, 3 + more},
		{"no token", `{"ms":700}`, ``, 0, 0},
		{"null token", `{"workDoneToken":null,"ms":700}`, ``, 0, 0},
		{"short report sends none", `{"workDoneToken":"t","ms":100,"report":true}`, `"t"`, 0, 0},
	}
	for _, framing := range framings {
		for _, c := range cases {
			t.Run(framing.String()+"/"+c.name, func(t *testing.T) {
				t.Parallel() // they mostly wait
				s := serve(t, framing, nil)
				s.send(`{"jsonrpc":"2.0","id":1,"method":"progress","params":` + c.params + `}`)
				n, m := s.progressUntilReply("1", c.token)
				if string(m.Result) != `"done"` {
					t.Fatalf("reply %s", m.Result)
				}
				if n < c.min || n > c.max {
					t.Errorf("%d notifications before the reply, want %d-%d", n, c.min, c.max)
				}
				// Nothing of the request may follow its reply: the next message,
				// a while later, is the next reply.
				time.Sleep(2 * ProgressInterval)
				s.send(`{"jsonrpc":"2.0","id":2,"method":"echo"}`)
				if m := s.recvMessage(); m.Method != "" || string(m.ID) != "2" {
					t.Fatalf("after the reply came %+v, want the reply to 2", m)
				}
			})
		}
	}
}

func TestProgressBadToken(t *testing.T) {
	t.Parallel()
	for _, tok := range []string{`{}`, `[1]`, `true`} {
		s := serve(t, FramingLines, nil)
		s.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"workDoneToken":` + tok + `}}`)
		r := s.recv()
		wantCode(t, r, CodeInvalidParams)
		if !strings.Contains(r.Error.Message, "workDoneToken") {
			t.Errorf("token %s: message %q does not name the field", tok, r.Error.Message)
		}
	}
}

// TestProgressNeverAfterReply races reports against the reply: a handler
// that reports until the moment it returns, many times over.
func TestProgressNeverAfterReply(t *testing.T) {
	t.Parallel() // it waits on progress intervals, on servers of its own
	// Eight servers of one request each, at once: the waits overlap.
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			s := serve(t, FramingLines, nil)
			id := json.RawMessage(strings.Repeat("9", 1+i%3))
			s.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"method":"progress","params":{"workDoneToken":"x","ms":` + []string{"499", "500", "501", "0"}[i%4] + `,"report":true}}`)
			s.progressUntilReply(string(id), `"x"`)
			s.send(`{"jsonrpc":"2.0","id":"end","method":"echo"}`)
			time.Sleep(ProgressInterval)
			if m := s.recvMessage(); string(m.ID) != `"end"` {
				t.Fatalf("got %+v, want the last reply", m)
			}
		})
	}
}

func TestClientOnProgress(t *testing.T) {
	t.Parallel() // its cases wait beside the package's other waits
	for _, framing := range framings {
		t.Run(framing.String(), func(t *testing.T) {
			t.Parallel() // it waits on progress intervals, on a server of its own
			c, _ := clientServer(t, framing)
			var got []int64
			remove, err := c.OnProgress("tok", func(v json.RawMessage) {
				var x struct{ N int64 }
				json.Unmarshal(v, &x)
				got = append(got, x.N)
			})
			if err != nil {
				t.Fatal(err)
			}
			defer remove()
			params := map[string]any{"workDoneToken": "tok", "ms": 1200}
			if err := c.Call(context.Background(), "progress", params, nil); err != nil {
				t.Fatal(err)
			}
			// Handled in order and before the reply: no lock needed to read got.
			if len(got) < 2 {
				t.Fatalf("progress before the reply: %v, want at least 2", got)
			}
			for i := 1; i < len(got); i++ {
				if got[i] <= got[i-1] {
					t.Fatalf("progress out of order: %v", got)
				}
			}
		})
	}
}

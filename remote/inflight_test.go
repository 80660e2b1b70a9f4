package remote

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestInflight: requests are matched to the daemon's replies by id, however
// the daemon spells the id back; notifications and cancels wait for no
// reply.
func TestInflight(t *testing.T) {
	var f inflight
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"read"}`,
		`{"jsonrpc":"2.0","id":"\u0041","method":"read"}`,
		`{"jsonrpc":"2.0","id":-1.5,"method":"exec"}`,
		`{"jsonrpc":"2.0","id":7,"method":"exec"}`,
		`{"jsonrpc":"2.0","id":7,"method":"exec"}`, // a duplicate id: two replies
		`{"jsonrpc":"2.0","method":"$/progress"}`,
		`{"jsonrpc":"2.0","id":9,"method":"$/cancelRequest","params":{"id":7}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"read"}`, // answered with id null
		`{"jsonrpc":"2.0","id":null,"method":"read"}`,
	} {
		f.sent([]byte(msg))
	}
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":"\"id\":7"}}`,
		`{"jsonrpc":"2.0","id":"A","error":{"code":-32001,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":7,"result":null}`,
		`{"id":-1.5,"jsonrpc":"2.0","result":1}`, // not the daemon's own envelope order
		`{"jsonrpc":"2.0","method":"$/progress","params":{"id":7}}`,
	} {
		f.answered([]byte(msg))
	}
	var left []string
	for _, id := range f.take() {
		left = append(left, string(id))
	}
	if !slices.Equal(left, []string{"7"}) {
		t.Errorf("unanswered %v, want [7]", left)
	}
	if ids := f.take(); len(ids) != 0 {
		t.Errorf("take forgets: %v", ids)
	}
}

func TestIDKey(t *testing.T) {
	same := [][2]string{{`"A"`, `"\u0041"`}, {` 12 `, `12`}, {`-1.5`, `-1.5`}}
	for _, p := range same {
		a, _ := idKey(json.RawMessage(p[0]))
		b, _ := idKey(json.RawMessage(p[1]))
		if a != b {
			t.Errorf("%s and %s: keys %q, %q", p[0], p[1], a, b)
		}
	}
	a, _ := idKey(json.RawMessage(`"1"`))
	b, _ := idKey(json.RawMessage(`1`))
	if a == b {
		t.Error(`"1" and 1 share a key`)
	}
}

// TestReplyCode reads the error code of the daemon's own envelope, and no
// code from a result, whatever the result holds.
func TestReplyCode(t *testing.T) {
	for _, tt := range []struct {
		msg  string
		code int64
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"no such file"}}`, -32001, true},
		{`{"jsonrpc":"2.0","id":"a,\"error\":{\"code\":5}","error":{"code":-32602}}`, -32602, true},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, -32700, true},
		{`{"jsonrpc":"2.0","id":1,"result":{"error":{"code":-1}}}`, 0, false},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":x}}`, 0, false},
		{`{"id":1,"jsonrpc":"2.0","error":{"code":-32001}}`, 0, false}, // not the daemon's envelope
	} {
		code, ok := replyCode([]byte(tt.msg))
		if code != tt.code || ok != tt.ok {
			t.Errorf("%s: %d %v, want %d %v", tt.msg, code, ok, tt.code, tt.ok)
		}
	}
}

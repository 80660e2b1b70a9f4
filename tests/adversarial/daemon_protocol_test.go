package adversarial

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Protocol abuse: input that must get a JSON-RPC error with the right code,
// or its correct answer, while the daemon goes on.

// hugeDigits is how many digits TestDaemonHugeNumbers' literals have:
// megabytes of them, far past rpc.MaxNumberChars, past which a literal is
// refused unparsed.
const hugeDigits = 3_000_000

// TestDaemonHugeNumbers: a param written with millions of
// digits, or with an exponent that math/big turns into a number of a
// billion digits, is answered at once, and the next request too. On the
// original main three million digits took some 28 s, past each reply's
// 10 s deadline.
//
// Serial (no t.Parallel), as TestDaemonMalformedGoesOn: CPU-bound, the
// daemon's parser over megabytes, each reply due within 10 s; in the
// crowd of the parallel cases' start a reply took 9.3 s of those 10.
func TestDaemonHugeNumbers(t *testing.T) {
	// The quick run keeps TestDaemonMalformedGoesOn and TestDaemonIDCollision instead.
	skipUnlessLong(t, "megabytes of huge numbers through the parser")
	_, c := daemonStdio(t)
	file := daemonFile(t, t.TempDir(), 10, 10)
	digits := strings.Repeat("9", hugeDigits)
	huge := fmt.Sprintf("%dk digits", len(digits)/1000)
	cases := []struct {
		name   string
		params string
		code   int64 // 0: a result
	}{
		{huge, `{"path":"` + file + `","limit":` + digits + `}`, -32602},
		{huge + ", fraction", `{"path":"` + file + `","maxBytes":1.` + digits + `}`, -32602},
		{huge + ", unknown field", `{"path":"` + file + `","zz":[` + digits + `]}`, -32602},
		{"exponent 1e9999999", `{"path":"` + file + `","limit":1e9999999}`, 0},
		{"exponent 1e-9999999", `{"path":"` + file + `","limit":1e-9999999}`, -32602},
		{"200 digits: clamped", `{"path":"` + file + `","limit":` + strings.Repeat("9", 200) + `}`, 0},
		{"a digit string is no number", `{"path":"` + file + `","limit":"` + digits + `"}`, -32602},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg := `{"jsonrpc":"2.0","id":` + itoa(i+1) + `,"method":"read","params":` + tc.params + `}`
			if err := c.send(msg); err != nil {
				t.Fatal(err)
			}
			m := c.next(10 * time.Second)
			if string(m.ID) != itoa(i+1) {
				t.Fatalf("reply to id %s, want %d", m.ID, i+1)
			}
			switch {
			case tc.code == 0 && m.Error != nil:
				t.Errorf("error %d %s, want a result", m.Error.Code, m.Error.Message)
			case tc.code != 0 && (m.Error == nil || m.Error.Code != tc.code):
				t.Errorf("got %s %+v, want error %d", m.Result, m.Error, tc.code)
			}
		})
	}
	if m := c.call(100, "read", map[string]any{"path": file}, 5*time.Second); m.Error != nil {
		t.Errorf("a plain read after them: %+v", m.Error)
	}
}

// TestDaemonIDCollision: rpc/ gives requests whose ids
// jsonrpc2 cannot hold (here -1) string ids of its own; a client that writes
// such a string id itself must not get the other request's reply, nor be
// able to cancel it.
func TestDaemonIDCollision(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	ours := `"\u0000toold-id-1"`
	cases := []struct {
		name string
		msgs []string
		want map[string]string // stdout by reply id; "cancelled" for a cancelled exec
	}{
		{"replies keep their ids", []string{
			`{"jsonrpc":"2.0","id":-1,"method":"exec","params":{"command":"sleep 0.3; echo slow"}}`,
			`{"jsonrpc":"2.0","id":` + ours + `,"method":"exec","params":{"command":"echo fast"}}`,
		}, map[string]string{"-1": "slow", ours: "fast"}},
		{"a cancel cannot reach another id", []string{
			`{"jsonrpc":"2.0","id":-1,"method":"exec","params":{"command":"sleep 0.3; echo slow"}}`,
			`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + ours + `}}`,
		}, map[string]string{"-1": "slow"}},
		{"a cancel reaches its own aliased id", []string{
			`{"jsonrpc":"2.0","id":` + ours + `,"method":"exec","params":{"command":"sleep 5; echo slow"}}`,
			`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + ours + `}}`,
		}, map[string]string{ours: "cancelled"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, c := daemonStdio(t)
			for _, m := range tc.msgs {
				if err := c.send(m); err != nil {
					t.Fatal(err)
				}
			}
			got := map[string]string{}
			for range tc.want {
				m := c.next(10 * time.Second)
				if m.Error != nil {
					t.Fatalf("id %s: error %+v", m.ID, m.Error)
				}
				var res struct {
					Cancelled bool
					Stdout    struct{ Head string }
				}
				json.Unmarshal(m.Result, &res)
				got[string(m.ID)] = strings.TrimSpace(res.Stdout.Head)
				if res.Cancelled {
					got[string(m.ID)] = "cancelled"
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("replies by id: %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDaemonMalformedGoesOn: each message here is refused with its code,
// and the connection answers the next request.
//
// Serial (no t.Parallel), as TestDaemonHugeNumbers: among the parallel
// cases the -race daemon's answer to the id of a million digits took 7-8 s
// of its 10.
func TestDaemonMalformedGoesOn(t *testing.T) {
	_, c := daemonStdio(t)
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	cases := []struct {
		name, msg string
		code      int64
	}{
		{"nesting 100k deep in params", `{"jsonrpc":"2.0","id":1,"method":"read","params":{"path":` + deep + `}}`, -32700},
		{"nesting 100k deep as message", deep, -32700},
		{"id of a million digits", `{"jsonrpc":"2.0","id":` + strings.Repeat("7", 1_000_000) + `,"method":"nope"}`, -32601},
		{"id that is an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"stats"}`, -32600},
		{"method that is a number", `{"jsonrpc":"2.0","id":2,"method":12}`, -32600},
		{"params that are a string", `{"jsonrpc":"2.0","id":3,"method":"read","params":"x"}`, -32602},
		{"NUL bytes in a method", `{"jsonrpc":"2.0","id":4,"method":"re\u0000ad"}`, -32601},
		{"a lone surrogate in a path", `{"jsonrpc":"2.0","id":5,"method":"read","params":{"path":"\ud800"}}`, -32001},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := c.send(tc.msg); err != nil {
				t.Fatal(err)
			}
			m := c.next(10 * time.Second)
			if m.Error == nil || m.Error.Code != tc.code {
				t.Errorf("got %.200s %+v, want error %d", m.Result, m.Error, tc.code)
			}
			if r := c.call(1000+i, "stats", nil, 5*time.Second); r.Error != nil {
				t.Errorf("stats after it: %+v", r.Error)
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

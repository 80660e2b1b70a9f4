package rpc

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestInFlightCapPausesReads: a client must not queue unbounded work, so at
// MaxInFlight running requests the connection reads nothing more, not even a
// cancel; one finishing lets the next in.
func TestInFlightCapPausesReads(t *testing.T) {
	t.Parallel()
	for _, framing := range framings {
		t.Run(framing.String(), func(t *testing.T) {
			s := serve(t, framing, &Server{MaxInFlight: 2})
			s.send(`{"id":1,"method":"block"}`, `{"id":2,"method":"block"}`, `{"id":3,"method":"slow"}`, `{"id":4,"method":"echo"}`)
			s.wantStarted("block", "block")
			select {
			case m := <-s.h.started:
				t.Fatalf("%s started past the cap of 2", m)
			case <-time.After(200 * time.Millisecond):
			}
			close(s.h.release) // both blocks answer; slow and echo get in
			got := map[string]bool{}
			for range 3 {
				got[string(s.recv().ID)] = true
			}
			s.wantStarted("slow")
			if !got["1"] || !got["2"] || !got["4"] {
				t.Errorf("replies %v, want 1, 2 and 4", got)
			}
		})
	}
}

// TestWriteTimeoutEndsNonReader: a client that reads nothing, its replies
// blocked past WriteTimeout, is treated as gone: ServeConn returns. Its
// two replies are 1 MiB each, past the socket's buffer
// (net.core.wmem_default, 208 KiB), to small requests: echoes of 1 MiB
// requests, decoded under -race as many times as the 200 ms allowed, took
// 1 CPU-second.
func TestWriteTimeoutEndsNonReader(t *testing.T) {
	t.Parallel()
	s := serve(t, FramingLines, &Server{WriteTimeout: 200 * time.Millisecond, DrainTimeout: time.Hour})
	for i := range 2 { // one blocked, one behind it
		s.send(`{"id":` + itoaTest(i) + `,"method":"big","params":1048576}`)
	}
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		if err == nil || !strings.Contains(err.Error(), "timeout") {
			t.Errorf("ServeConn: %v, want the write timeout", err)
		}
	case <-time.After(failAfter):
		t.Fatal("ServeConn still serves a client that reads nothing")
	}
}

// TestDrainAbortsBlockedReplies: a client that stops reading must not hold
// a connection forever. The input has ended and the replies cannot be
// written (nobody reads): after the drain and the cancel, they are aborted
// and ServeConn returns, with no write timeout.
func TestDrainAbortsBlockedReplies(t *testing.T) {
	t.Parallel()
	s := serve(t, FramingLines, &Server{WriteTimeout: -1, DrainTimeout: 100 * time.Millisecond})
	// Replies of 256 KiB to small requests (echoes of requests as big
	// were decoded under -race for nothing).
	for i := range 4 {
		s.send(`{"id":` + itoaTest(i) + `,"method":"big","params":262144}`)
	}
	s.conn.CloseWrite()
	select {
	case err := <-s.done:
		s.done <- err
	case <-time.After(failAfter):
		t.Fatal("ServeConn still waits on replies nobody reads after the input ended")
	}
}

// TestAliasNamespace: a client must not forge rpc's own ids. A client's
// string id in the namespace of rpc's own aliases is aliased too, so
// replies keep their ids and a cancel cannot reach another request.
func TestAliasNamespace(t *testing.T) {
	t.Parallel()
	s := serve(t, FramingLines, nil)
	ours := `"\u0000toold-id-1"`
	s.send(`{"id":-1,"method":"slow"}`, `{"method":"$/cancelRequest","params":{"id":`+ours+`}}`,
		`{"id":`+ours+`,"method":"echo"}`)
	s.wantStarted("slow")
	r := s.recv()
	wantID(t, r, ours)
	select {
	case m := <-s.h.cancelled:
		t.Fatalf("%s was cancelled by a cancel of another id", m)
	case <-time.After(200 * time.Millisecond):
	}
	s.send(`{"method":"$/cancelRequest","params":{"id":-1}}`)
	r = s.recv()
	wantID(t, r, `-1`)
	wantCode(t, r, CodeRequestCancelled)
}

// TestLongNumber: literals longer than the cap are found outside strings
// only, in one pass.
func TestLongNumber(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("9", 300)
	cases := []struct {
		in     string
		at, n  int
		reason string
	}{
		{`{"a":1}`, 0, 0, "short"},
		{`{"a":` + long + `}`, 5, 300, "long"},
		{`{"a":"` + long + `"}`, 0, 0, "in a string"},
		{`{"a":"\"` + long + `"}`, 0, 0, "in a string after an escaped quote"},
		{`{"a":"\\",  "b":-` + long + `.5e10}`, 16, 306, "after a string ending in a backslash"},
		{`[` + strings.Repeat("1,", 300) + `1]`, 0, 0, "many short ones"},
	}
	for _, tc := range cases {
		at, n := longNumber([]byte(tc.in), 256)
		if at != tc.at || n != tc.n {
			t.Errorf("%s: longNumber = %d, %d; want %d, %d", tc.reason, at, n, tc.at, tc.n)
		}
	}
	var v struct{ A int }
	err := DecodeParams([]byte(`{"a":`+strings.Repeat("1", 3_000_000)+`}`), &v)
	if e, ok := err.(*Error); !ok || e.Code != CodeInvalidParams || !strings.HasPrefix(e.Message, "invalid params: a: ") {
		t.Errorf("3M digits: %v, want -32602 naming a", err)
	}
}

// TestPathAt names the field whose value starts at an offset, as the
// -32602 of a number literal too long to decode does.
func TestPathAt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"limit":#}`, "limit"},
		{`{ "a" : 1, "b": "x:y", "limit" :  #}`, "limit"},
		{`{"limits":{"read":{"offset":1,"limit":#}}}`, "limits.read.limit"},
		{`{"a":{"b":1},"c":[1,{"d":2}],"e":#}`, "e"},
		{`{"roots":[1,#]}`, "roots"},
		{`{"roots":[{"x":1},{"y":#}]}`, "roots.y"},
		{`{"a\"b":#}`, `a"b`},
		{`[#]`, ""},
	} {
		at := strings.IndexByte(tc.in, '#')
		if got := pathAt([]byte(tc.in), at); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.in, got, tc.want)
		}
	}
}

func itoaTest(i int) string { return strconv.Itoa(i) }

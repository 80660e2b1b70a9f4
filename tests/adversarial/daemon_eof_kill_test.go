package adversarial

import (
	"encoding/json"
	"net"
	"testing"
	"time"
)

// TestEOFAnswersCommandsThatIgnoreTERM: the input ends while commands
// that ignore SIGTERM run, one timing out, one cancelled by the end of
// the input: each is SIGKILLed KillDelay after its SIGTERM and its reply
// is written before the connection ends. On every transport (the socket's
// client shuts down its writing).
func TestEOFAnswersCommandsThatIgnoreTERM(t *testing.T) {
	_, sock := daemonShared(t, 0)
	for name, open := range map[string]func() (*rawClient, func()){
		"stdio": func() (*rawClient, func()) {
			_, c := daemonStdio(t)
			return c, func() { c.w.Close() }
		},
		"forwarded": func() (*rawClient, func()) {
			_, c := daemonForwarded(t)
			return c, func() { c.w.Close() }
		},
		"socket": func() (*rawClient, func()) {
			c := daemonServed(t, sock)
			return c, func() { c.w.(*net.UnixConn).CloseWrite() }
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // the three kill delays overlap; the case stays apart from the package's others
			c, eof := open()
			ignore := `trap "" TERM; sleep 50`
			c.send(rawRequest(2, "exec", map[string]any{"command": ignore, "timeoutMs": 300}))
			c.send(rawRequest(3, "exec", map[string]any{"command": ignore}))
			time.Sleep(50 * time.Millisecond) // the shells have set their traps
			eof()
			got := map[string]json.RawMessage{}
			deadline := time.Now().Add(15 * time.Second)
			for len(got) < 2 && time.Now().Before(deadline) {
				m, err := c.tryNext(time.Until(deadline))
				if err != nil {
					break
				}
				if string(m.ID) == "2" || string(m.ID) == "3" {
					got[string(m.ID)] = m.Result
				}
			}
			var timedOut, cancelled struct {
				TimedOut, Cancelled bool
				Signal              *string
			}
			if json.Unmarshal(got["2"], &timedOut) != nil || !timedOut.TimedOut {
				t.Errorf("the command that timed out: reply %s", got["2"])
			}
			if json.Unmarshal(got["3"], &cancelled) != nil || !(cancelled.Cancelled || cancelled.TimedOut) {
				t.Errorf("the command cancelled by the end of input: reply %s", got["3"])
			}
		})
	}
}

package adversarial

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// TestEOFAnswersCommandsThatIgnoreTERM: the input ends while commands
// that ignore SIGTERM run, one timing out, one cancelled by the end of
// the input: each is SIGKILLed KillDelay after its SIGTERM and its reply
// is written before the connection ends. On every transport (the socket's
// client shuts down its writing).
//
// The kill delay (2 s, no flag) is waited idle: the three transports'
// commands are started and their inputs ended first, so that the delays
// overlap each other's and the package's other tests (t.Parallel); the
// subtests then read the replies.
func TestEOFAnswersCommandsThatIgnoreTERM(t *testing.T) {
	// The quick run keeps TestDaemonExecSignals instead.
	skipUnlessLong(t, "commands that ignore SIGTERM at EOF")
	t.Parallel()
	_, sock := daemonShared(t, 0)
	transports := []struct {
		name string
		open func() (*rawClient, func())
	}{
		{"stdio", func() (*rawClient, func()) {
			_, c := daemonStdio(t)
			return c, func() { c.w.Close() }
		}},
		{"forwarded", func() (*rawClient, func()) {
			_, c := daemonForwarded(t)
			return c, func() { c.w.Close() }
		}},
		{"socket", func() (*rawClient, func()) {
			c := daemonServed(t, sock)
			return c, func() { c.w.(*net.UnixConn).CloseWrite() }
		}},
	}
	replies := make([]<-chan map[string]json.RawMessage, len(transports))
	for i, tr := range transports {
		c, eof := tr.open()
		// Each shell touches a file once its trap is set: the end of input
		// comes after that (30 s: a forwarder, its daemon and two shells
		// on a machine loaded past 15), or, for request 2, once its 300 ms
		// timeout has struck whatever its shell had done.
		dir := t.TempDir()
		sent := time.Now()
		for id, timeout := range map[int]int{2: 300, 3: 0} {
			params := map[string]any{"command": fmt.Sprintf(`trap "" TERM; : > %s/%d; sleep 50`, dir, id)}
			if timeout > 0 {
				params["timeoutMs"] = timeout
			}
			c.send(rawRequest(id, "exec", params))
		}
		trapped := func(id string) bool { _, err := os.Stat(filepath.Join(dir, id)); return err == nil }
		testenv.WaitFor(t, 30*time.Second, tr.name+"'s shells to set their traps", func() bool {
			return trapped("3") && (trapped("2") || time.Since(sent) > 300*time.Millisecond)
		})
		eof()
		replies[i] = termReplies(c)
	}
	for i, tr := range transports {
		t.Run(tr.name, func(t *testing.T) { checkTERMReplies(t, <-replies[i]) })
	}
}

// termReplies reads c's replies to requests 2 and 3 as they come (the
// stdio daemon's stdout is closed once it has exited), for up to 15 s.
func termReplies(c *rawClient) <-chan map[string]json.RawMessage {
	ch := make(chan map[string]json.RawMessage, 1)
	go func() {
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
		ch <- got
	}()
	return ch
}

// checkTERMReplies checks the replies to requests 2 (timed out) and 3
// (cancelled by the end of input).
func checkTERMReplies(t *testing.T, got map[string]json.RawMessage) {
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
}

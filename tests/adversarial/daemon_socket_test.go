package adversarial

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// The shared socket: floods of connections, descriptor exhaustion, and
// daemons that race for the socket.

// TestDaemonAcceptEMFILE: under `ulimit -n 64`, sixty idle
// connections made accept fail with EMFILE and the daemon exit, ending
// every session. Now it backs off and goes on; past its per-uid cap (half
// the descriptors: 32) a connection's first request is answered -32006; and
// once the idle ones close, a client is served again.
func TestDaemonAcceptEMFILE(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	p, sock := daemonShared(t, 64)
	var idle []net.Conn
	for range 60 {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	// The daemon has run out of descriptors when it says so.
	if !testenv.Until(10*time.Second, func() bool { return strings.Contains(p.stderr.String(), "accept failed") }) {
		t.Fatalf("no accept failed with 60 idle connections under ulimit -n 64:\n%s", daemonTail(p.stderr.String(), 3000))
	}
	select {
	case <-p.exited:
		t.Fatalf("the daemon exited with 60 idle connections: %v", p.err)
	default:
	}
	start := time.Now()
	c := daemonDial(t, sock)
	m := c.call(1, "stats", nil, 10*time.Second)
	t.Logf("refused after %v", time.Since(start))
	if m.Error == nil || m.Error.Code != -32006 || !strings.Contains(m.Error.Message, "too many connections") {
		t.Errorf("a connection past the cap: %s %+v, want -32006 too many connections", m.Result, m.Error)
	}
	for _, c := range idle {
		c.Close()
	}
	start = time.Now()
	daemonServed(t, sock)
	t.Logf("served after %v", time.Since(start))
}

// TestDaemonExecsUnderFewDescriptors: commands hold descriptors too (pipes,
// spool files). Under `ulimit -n 64`, sixteen clients each running execs at
// once get results or -32005 for a command that could not start, and the
// daemon goes on.
//
// Each prints 100,000 lines: past exec's 2,000-line preview, so spooled, a
// descriptor more, and the sleep holds them all at once.
func TestDaemonExecsUnderFewDescriptors(t *testing.T) {
	// The quick run keeps TestDaemonAcceptEMFILE instead.
	skipUnlessLong(t, "execs under a low descriptor limit")
	t.Parallel() // daemons and files of its own: it waits beside the others
	p, sock := daemonShared(t, 64)
	const command = "seq 100000; sleep 0.2"
	var wg sync.WaitGroup
	for i := range 16 {
		c := daemonDial(t, sock)
		wg.Go(func() {
			for j := range 3 {
				m := c.call(j, "exec", map[string]any{"command": command}, 30*time.Second)
				if m.Error != nil && m.Error.Code != -32005 && m.Error.Code != -32006 {
					t.Errorf("client %d: %+v", i, m.Error)
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-p.exited:
		t.Fatalf("the daemon exited: %v", p.err)
	default:
	}
	if m := daemonDial(t, sock).call(1, "stats", nil, 10*time.Second); m.Error != nil {
		t.Errorf("stats afterwards: %+v", m.Error)
	}
}

// TestDaemonConnCapFramings: past --max-conns, the refusal comes in the
// client's own framing, and a slot freed is a slot served.
func TestDaemonConnCapFramings(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	_, sock := daemonShared(t, 0, "--max-conns", "2")
	a, b := daemonServed(t, sock), daemonServed(t, sock)
	// Headers framing: read the raw reply.
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":7,"method":"stats"}`
	fmt.Fprintf(conn, "Content-Length: %d\r\n\r\n%s", len(body), body)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	reply, _ := readAll(conn)
	if !strings.HasPrefix(reply, "Content-Length: ") || !strings.Contains(reply, `"id":7`) || !strings.Contains(reply, "-32006") {
		t.Errorf("headers client past the cap got %q", reply)
	}
	// Lines framing, and the connection is then closed by the daemon.
	c := daemonDial(t, sock)
	if m := c.call(8, "stats", nil, 5*time.Second); m.Error == nil || m.Error.Code != -32006 {
		t.Errorf("lines client past the cap: %+v", m.Error)
	}
	if _, err := c.tryNext(5 * time.Second); err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Errorf("the refused connection stays open: %v", err)
	}
	a.w.Close()
	daemonServed(t, sock)
	_ = b
}

// daemonServed dials the socket until a connection is served rather than
// refused (the daemon notices closed connections a moment after they
// close), for up to 10 s.
func daemonServed(t testing.TB, sock string) *rawClient {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c := daemonDial(t, sock)
		m := c.call(0, "stats", nil, 10*time.Second)
		if m.Error == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection is served: %+v", m.Error)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func readAll(c net.Conn) (string, error) {
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String(), err
		}
	}
}

// TestDaemonManyConnections: a flood of 10,000 connections, each with a
// session: the daemon lives, its peak RSS stays under 256 MiB, those past
// the cap are told so, and another client is still answered.
func TestDaemonManyConnections(t *testing.T) {
	// The quick run keeps TestDaemonConnCapFramings instead.
	skipUnlessLong(t, "many connections to the shared socket")
	t.Parallel() // daemons and files of its own: it waits beside the others
	const n = 10_000
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); uint64(lim.Cur) < uint64(n+100) { // int64 on FreeBSD
		t.Skipf("needs %d descriptors, has %d", n+100, lim.Cur)
	}
	p, sock := daemonShared(t, 0)
	var mu sync.Mutex
	served, refused := 0, 0
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4*runtime.NumCPU())
	for i := range n {
		sem <- struct{}{}
		c := daemonDial(t, sock)
		wg.Go(func() {
			defer func() { <-sem }()
			m := c.call(i, "initialize", map[string]any{}, 30*time.Second)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case m.Error == nil:
				served++
			case m.Error.Code == -32006:
				refused++
			default:
				t.Errorf("connection %d: %+v", i, m.Error)
			}
		})
	}
	wg.Wait()
	rss := p.peakRSS(t)
	t.Logf("%d connections: %d served, %d refused; peak RSS %d MiB", n, served, refused, rss>>20)
	if rss > daemonRSSBudget {
		t.Errorf("peak RSS %d MiB, want under %d", rss>>20, daemonRSSBudget>>20)
	}
	if served == 0 {
		t.Error("no connection was served")
	}
	select {
	case <-p.exited:
		t.Fatalf("the daemon exited: %v", p.err)
	default:
	}
}

// TestDaemonListenRace: three daemons started together on one socket, 25
// rounds: exactly one listens, the others exit saying so, and the socket
// the survivor serves on stays (the original let two listen, and a loser's
// exit removed the winner's socket).
func TestDaemonListenRace(t *testing.T) {
	// The quick run keeps TestDaemonConnCapFramings instead.
	skipUnlessLong(t, "daemons racing to listen on one socket")
	t.Parallel() // daemons and files of its own: it waits beside the others
	for round := range 25 {
		dir := daemonPrivateDir(t)
		sock := dir + "/toold.sock"
		var procs []*daemonProc
		for range 3 {
			p := daemonStart(t, 0, "serve", "--listen", sock, "--spool-root", dir+"/spool")
			procs = append(procs, p)
		}
		for _, p := range procs {
			p.run(t)
		}
		// The losers exit at once: wait (up to 10 s) until all but one have.
		done := func(p *daemonProc) bool {
			select {
			case <-p.exited:
				return true
			default:
				return false
			}
		}
		exited := func() (n int) {
			for _, p := range procs {
				if done(p) {
					n++
				}
			}
			return n
		}
		testenv.Until(10*time.Second, func() bool { return exited() >= len(procs)-1 })
		running := 0
		for _, p := range procs {
			if !done(p) {
				running++
			} else if !strings.Contains(p.stderr.String(), "already listening") {
				t.Errorf("round %d: a daemon exited with %q", round, p.stderr.String())
			}
		}
		if running != 1 {
			t.Fatalf("round %d: %d daemons run, want 1", round, running)
		}
		if m := daemonDial(t, sock).call(1, "stats", nil, 5*time.Second); m.Error != nil {
			t.Fatalf("round %d: the socket does not answer: %+v", round, m.Error)
		}
		for _, p := range procs {
			p.cmd.Process.Signal(syscall.SIGTERM)
			p.wait(10 * time.Second)
		}
		if _, err := os.Lstat(sock); !os.IsNotExist(err) {
			t.Errorf("round %d: the socket is left after the daemon stopped: %v", round, err)
		}
	}
}

package adversarial

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/proc"
	"github.com/toold/toold/internal/testenv"
)

// Bad neighbours: clients that send much and read nothing.

// daemonFloodRequests is how many reads a flood sends: 1,500 in the quick
// run, 10,000 in the long run. Either is well past what a daemon that
// pauses its reads at the in-flight cap takes before its writer blocks:
// some 1,000 on stdio (64 in flight, the rest in the pipe's 64 KiB and
// rpc's 64 KiB read buffer, at ~140 bytes a request), fewer on the socket
// (floodDial), so checkPaused can tell.
func daemonFloodRequests() int {
	if daemonLong() {
		return 10_000
	}
	return 1_500
}

// floodWindow is the maxBytes of a flood's reads: 8 KiB in the quick run,
// 256 KiB in the long run. The quick run attacks the -race build, whose
// instrumented code took 45 CPU-seconds a flood to move 1,000 windows of
// 256 KiB, and whose peak RSS then neared the budget (231 MiB), the race
// detector's shadow of the heap's churn. At 8 KiB a -race daemon with the
// cap peaks at 60-66 MiB, and one that reads every request at once (the
// cap broken: MaxInFlight 1<<20) at 420-440 MiB, past the budget; as
// shipped that one peaks at 55-61 MiB, but its writer sends all 1,500
// (checkPaused).
func floodWindow() int {
	if daemonLong() {
		return 256 << 10
	}
	return 8 << 10
}

const daemonRSSBudget = 256 << 20

// floodReads sends n reads of floodWindow-byte windows of path without
// reading the replies, in a goroutine (its writes block once the daemon
// stops reading); sent counts the requests written.
func floodReads(c *rawClient, path string, n int, sent *atomic.Int64) {
	window := floodWindow()
	go func() {
		for i := range n {
			if c.send(rawRequest(i+1, "read", map[string]any{"path": path, "maxBytes": window, "limit": 100000})) != nil {
				return
			}
			sent.Add(1)
		}
	}()
}

// floodQuiet is how long a flood's writer or the daemon's peak RSS must
// stand still to count as settled (settle, settledRSS).
const floodQuiet = 150 * time.Millisecond

// drainFlood reads the flood's n replies and fails on any error reply, or
// when 30 s pass without one. It looks at each reply's envelope only, in
// place in the reader's buffer: decoding or copying the windows (16 MB in
// the quick run, 2.5 GB in the long one; a quarter gigabyte was a
// CPU-second of the race-instrumented test's) would make the test slow,
// not stricter.
func drainFlood(t *testing.T, c *rawClient, n int) {
	t.Helper()
	if c.br == nil {
		c.br = bufio.NewReaderSize(c.r, 1<<20)
	}
	var got atomic.Int64
	done := make(chan error, 1)
	go func() { // it ends at the latest when the connection closes at cleanup
		for i := range n {
			head, err := readHead(c.br, 64)
			if err != nil {
				done <- fmt.Errorf("after %d of %d replies: %w", i, n, err)
				return
			}
			if !bytes.Contains(head, []byte(`,"result":{`)) {
				done <- fmt.Errorf("reply %d is no result: %q", i, head)
				return
			}
			got.Add(1)
		}
		done <- nil
	}()
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for last := int64(-1); ; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			return
		case <-tick.C:
			if cur := got.Load(); cur == last {
				t.Fatalf("after %d of %d replies: no reply within 30 s", cur, n)
			} else {
				last = cur
			}
		}
	}
}

// readHead reads one line from br and returns its first k bytes.
func readHead(br *bufio.Reader, k int) ([]byte, error) {
	var head []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(head) < k {
			head = append(head, chunk[:min(len(chunk), k-len(head))]...)
		}
		if err != bufio.ErrBufferFull {
			return head, err
		}
	}
}

// settle waits until the flood's writer has sent everything or has made no
// progress for floodQuiet (the daemon paused its reads), polling, for at
// most a minute.
func settle(sent *atomic.Int64, n int) {
	last, since := int64(-1), time.Now()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		switch cur := sent.Load(); {
		case cur >= int64(n):
			return
		case cur != last:
			last, since = cur, time.Now()
		case time.Since(since) >= floodQuiet:
			return
		}
	}
}

// settledRSS waits until p's peak RSS has not grown for floodQuiet (the
// daemon has done what it does with what it read), polling, for at most
// 10 s, and returns it.
func (p *daemonProc) settledRSS(t *testing.T) int64 {
	t.Helper()
	last, since := p.peakRSS(t), time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if rss := p.peakRSS(t); rss != last {
			last, since = rss, time.Now()
		} else if time.Since(since) >= floodQuiet {
			break
		}
	}
	return last
}

// floodDial connects a raw client to sock for a flood, with a send buffer
// of 64 KiB (the kernel doubles it): what its writes queue before the
// daemon reads them is then bounded on every machine, as a pipe's 64 KiB
// is on stdio, not by net.core.wmem_default (at its usual 212,992 bytes
// 500-600 requests were written before the daemon paused, 280-310 with
// 64 KiB).
func floodDial(t *testing.T, sock string) *rawClient {
	t.Helper()
	c := daemonDial(t, sock)
	if err := c.w.(*net.UnixConn).SetWriteBuffer(64 << 10); err != nil {
		t.Fatal(err)
	}
	return c
}

// checkPaused fails t unless the daemon stopped reading the flood before
// its end, which is what bounds its memory: the writer, settled, has
// requests left to send.
func checkPaused(t *testing.T, sent *atomic.Int64, n int) {
	t.Helper()
	t.Logf("%d requests, %d written before the daemon paused", n, sent.Load())
	if sent.Load() >= int64(n) {
		t.Errorf("the daemon read all %d requests: its reads never paused at the in-flight cap", n)
	}
}

// checkFloodRSS fails t if p's peak RSS, over the flood and its drain,
// went past the budget; paused is the peak when the flood had settled. A
// -race daemon's RSS is the shipped one's and the race detector's shadow,
// so the budget holds it to at least as much as the shipped daemon.
func checkFloodRSS(t *testing.T, p *daemonProc, paused int64) {
	t.Helper()
	rss := p.peakRSS(t) // VmHWM: the peak of the whole run, paused's too
	t.Logf("peak RSS %d MiB with the flood paused, %d MiB after its drain", paused>>20, rss>>20)
	if rss > daemonRSSBudget {
		t.Errorf("peak RSS %d MiB, want under %d", rss>>20, daemonRSSBudget>>20)
	}
}

// TestDaemonFloodStdio: a flood on stdio. A client pipelines
// thousands of reads (1,500 of 8 KiB windows; 10,000 of 256 KiB with
// TOOLD_LONG=1) and reads none of the replies: the daemon stops reading
// them before their end, its peak RSS stays under 256 MiB (the original
// read every request at once and held every reply: past 1 GB for 10,000),
// and every reply arrives once the client reads.
//
// Serial (no t.Parallel), as TestDaemonFloodSocket: it moves the replies
// through the daemon on both cores (2.5 GB in the long run), and its
// settling waits (settle, settledRSS) tell the daemon's pause by quiet
// periods that other tests' load would stretch or fake.
func TestDaemonFloodStdio(t *testing.T) {
	// The quick run keeps TestDaemonSIGTERMDuringFlood instead.
	skipUnlessLong(t, "a flood that reads no replies, on stdio")
	p, c := daemonStdio(t)
	path := daemonFile(t, t.TempDir(), 8192, 128) // 1 MiB
	n := daemonFloodRequests()
	var sent atomic.Int64
	floodReads(c, path, n, &sent)
	settle(&sent, n)
	checkPaused(t, &sent, n)
	paused := p.settledRSS(t)
	drainFlood(t, c, n)
	checkFloodRSS(t, p, paused)
}

// TestDaemonFloodSocket: a flood on the shared socket, where one
// client's flood must cost the others nothing: while it is paused, another
// client's read answers as fast as before the flood (within a generous
// bound: the point is not to wait behind the flood).
//
// Serial (no t.Parallel): the other client's latency is timed, and the
// tests beside it would time their own load; the peak RSS and the
// settling as for TestDaemonFloodStdio.
func TestDaemonFloodSocket(t *testing.T) {
	// The quick run keeps TestDaemonSIGTERMDuringFlood instead.
	skipUnlessLong(t, "a flood that reads no replies, on the socket")
	p, sock := daemonShared(t, 0)
	path := daemonFile(t, t.TempDir(), 8192, 128)
	other := daemonDial(t, sock)
	probe := func(id int) time.Duration {
		start := time.Now()
		if m := other.call(id, "read", map[string]any{"path": path, "limit": 10}, 10*time.Second); m.Error != nil {
			t.Fatalf("the other client's read: %+v", m.Error)
		}
		return time.Since(start)
	}
	before := probe(1)
	flood := floodDial(t, sock)
	n := daemonFloodRequests()
	var sent atomic.Int64
	floodReads(flood, path, n, &sent)
	settle(&sent, n)
	checkPaused(t, &sent, n)
	var during time.Duration
	for i := range 5 {
		during = max(during, probe(10+i))
	}
	paused := p.settledRSS(t)
	t.Logf("other client's read: %v before the flood, at most %v during it", before, during)
	if during > 2*time.Second {
		t.Errorf("the other client waited %v during the flood", during)
	}
	drainFlood(t, flood, n)
	checkFloodRSS(t, p, paused)
}

// TestDaemonStdioNonReaderEnds: a
// stdio client starts commands and sends requests, closes its input and
// never reads: the daemon ends within a few seconds of the end of its input,
// its commands killed, instead of living on blocked on replies nobody reads
// (main ran on for the minute of its write timeout above the in-flight cap,
// where its reads are paused and the end of input is not read). Both below
// the cap (the end of input is read) and above it.
//
// The daemon ends about 6 s after its input (the drain's 1 s, then the
// cancelled requests' 5 s: rpc's CancelTimeout, which has no flag), idle:
// both daemons are started, step by step together, and their inputs ended
// first, so that their waits overlap each other's and the package's other
// tests (t.Parallel); the subtests then wait.
func TestDaemonStdioNonReaderEnds(t *testing.T) {
	// The quick run keeps TestDaemonSIGTERMDuringFlood instead.
	skipUnlessLong(t, "a stdio client that never reads")
	t.Parallel()
	var cases []*nonReader
	for _, requests := range []int{40, 400} {
		cases = append(cases, startNonReader(t, requests))
	}
	for _, nr := range cases {
		nr.flood(t)
	}
	for _, nr := range cases {
		t.Run(fmt.Sprint(nr.requests, " requests"), nr.check)
	}
}

// nonReader is a stdio daemon whose client does not read.
type nonReader struct {
	p        *daemonProc
	c        *rawClient
	requests int
	marker   string // in its commands' environment
	started  string // the directory its commands touch a file in as they start
	sent     atomic.Int64
	closed   time.Time // when its input ended
}

// startNonReader starts a daemon on stdio and three commands on it.
func startNonReader(t *testing.T, requests int) *nonReader {
	p, c := daemonStdio(t)
	nr := &nonReader{p: p, c: c, requests: requests, started: t.TempDir(),
		marker: fmt.Sprintf("TOOLD_NONREADER=%d-%d", os.Getpid(), requests)}
	k, v, _ := strings.Cut(nr.marker, "=")
	// Each command touches a file as it starts (cheaper to wait on than
	// scanning every process's environment for the marker).
	for i := range 3 {
		command := fmt.Sprintf("touch %s/%d; sleep 300", nr.started, i)
		if err := c.send(rawRequest(100000+i, "exec", map[string]any{"command": command, "env": map[string]string{k: v}})); err != nil {
			t.Fatal(err)
		}
	}
	return nr
}

// flood waits for the commands to run, sends the requests and closes the
// daemon's input.
func (nr *nonReader) flood(t *testing.T) {
	testenv.WaitFor(t, 10*time.Second, "the commands to start", func() bool {
		entries, _ := os.ReadDir(nr.started)
		return len(entries) == 3
	})
	path := daemonFile(t, t.TempDir(), 8192, 128)
	floodReads(nr.c, path, nr.requests, &nr.sent)
	settle(&nr.sent, nr.requests)
	nr.c.w.Close()
	nr.closed = time.Now()
}

// check waits for the daemon to end, its commands with it. The stdout pipe
// stays open and unread until the test ends. The bound tells the ~6 s from
// the minute of the write timeout, with room for a loaded machine (6 s
// failed at a load of 14 on 2 cores).
func (nr *nonReader) check(t *testing.T) {
	switch code := nr.p.wait(time.Until(nr.closed.Add(15 * time.Second))); code {
	case -1:
		t.Fatalf("the daemon still runs 15 s after its input ended (%d requests written)", nr.sent.Load())
	case 0:
	default:
		t.Fatalf("the daemon exited %d, want 0", code)
	}
	if left := withEnv(nr.marker); len(left) > 0 {
		t.Errorf("its commands outlive it: %v", left)
	}
}

// withEnv lists the live processes whose environment holds entry.
func withEnv(entry string) []int {
	var pids []int
	for _, pid := range proc.Pids() {
		if info, err := proc.Stat(pid); err != nil || info.Zombie {
			continue
		}
		if has, _ := proc.HasEnv(pid, entry); has {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestDaemonSIGTERMDuringFlood: a daemon whose connection is paused at its
// in-flight cap (replies unread) still stops on SIGTERM, and removes its
// socket.
func TestDaemonSIGTERMDuringFlood(t *testing.T) {
	t.Parallel() // no RSS nor latency measured: it waits beside the others
	p, sock := daemonShared(t, 0)
	path := daemonFile(t, t.TempDir(), 8192, 128)
	flood := floodDial(t, sock)
	var sent atomic.Int64
	floodReads(flood, path, 1000, &sent)
	settle(&sent, 1000)
	checkPaused(t, &sent, 1000) // the case's premise: reads paused at the cap
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(testenv.Loaded(15 * time.Second)); code == -1 {
		t.Fatal("the daemon still runs 15 s after SIGTERM")
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("the socket is left: %v", err)
	}
}

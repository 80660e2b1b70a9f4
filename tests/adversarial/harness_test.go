package adversarial

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/rpc"
)

// binPath is the built toold the cases attack: testenv.Toold's, the one
// build cmd/toold and client share, made as this test binary was. The
// quick run (`go test -race`) so attacks the -race build, with the race
// detector watching the daemon under attack (checkNoRace), and needs no
// build without -race of its own (a minute of CPU in a cold build cache);
// CI's long run, without -race, attacks toold as shipped, at full size.
var binPath string

func TestMain(m *testing.M) {
	// The binary first: testenv.Toold runs go list, which with
	// XDG_CACHE_HOME at an empty directory finds no build cache and spent
	// a CPU-second redoing cgo's work each run.
	var err error
	testenv.NoExitSleep() // Toold's too; a given -race binary sleeps a second at exit without it
	if bin := os.Getenv("TOOLD_ADVERSARIAL_BIN"); bin != "" {
		binPath = bin // as daemonBinary: a given binary (TestSandboxAsNobody's)
	} else if binPath, err = testenv.Toold(); err != nil {
		fmt.Fprintf(os.Stderr, "building toold: %v\n", err)
		os.Exit(1)
	}
	// The search index's files go to a cache of the tests' own.
	cache, err := os.MkdirTemp("", "toold-adversarial-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	// The cases run in parallel (t.Parallel): each has daemons and files
	// of its own and mostly waits on them. Only the two floods
	// (TestDaemonFlood*: thousands of replies through the daemon, quiet
	// periods that tell its pause, another client's latency) and the two
	// that push megabytes through the daemon's parser, each reply due
	// within 10 s (TestDaemonHugeNumbers, TestDaemonMalformedGoesOn), run
	// serially, first, alone as far as this package goes.
	// Six cases a CPU at once: those that wait seconds idle on a daemon
	// (the drain and cancel timeouts after the end of input, the kill
	// delay: ~7 s for TestDaemonStdioNonReaderEnds) wait beside the
	// others' work. All at once (128) took no less time on 2 CPUs, and
	// since every sandboxed session starts launchers (race-built toolds)
	// the load rose past 40 and replies due in seconds came in 30.
	testenv.ParallelAtLeast(6 * runtime.GOMAXPROCS(0))
	code := m.Run()
	os.RemoveAll(cache)
	if nobodyBin.dir != "" {
		os.RemoveAll(nobodyBin.dir) // binFor's copy
	}
	testenv.Exit(code)
}

// long reports whether the long variants run: TOOLD_LONG=1 or the
// adversarial_long build tag.
func long() bool { return longTag || testenv.Long() }

// skipUnlessLong is testenv.SkipUnlessLong that honours the
// adversarial_long tag too: the case runs in the long run only, and its
// gate's comment names what the quick run keeps of its attack class.
func skipUnlessLong(t *testing.T, what string) {
	t.Helper()
	if !longTag {
		testenv.SkipUnlessLong(t, what)
	}
}

// rpcError is the error of a reply.
type rpcError = rpc.Error

// reply is a response: a result or an error.
type reply struct {
	Result json.RawMessage
	Error  *rpcError
}

// window is the part of read's, readBytes' and page's result the cases check.
type window struct {
	Path       string  `json:"path"`
	Content    string  `json:"content"`
	TotalLines int64   `json:"totalLines"`
	TotalBytes int64   `json:"totalBytes"`
	EndByte    int64   `json:"endByte"`
	Binary     bool    `json:"binary"`
	Notice     *string `json:"notice"`
	Next       *struct {
		StartByte *int64 `json:"startByte"`
	} `json:"next"`
}

// stream and execResult are the part of exec's result the cases check.
type stream struct {
	Head       string `json:"head"`
	Tail       string `json:"tail"`
	TotalBytes int64  `json:"totalBytes"`
	Spool      *struct {
		ID     string `json:"id"`
		Path   string `json:"path"`
		Bytes  int64  `json:"bytes"`
		Capped bool   `json:"capped"`
	} `json:"spool"`
}

type execResult struct {
	ExitCode *int    `json:"exitCode"`
	Stdout   stream  `json:"stdout"`
	Notice   *string `json:"notice"`
}

// client is one connection to a daemon, through rpc's own client (and so
// its framing): many requests can be in flight.
type client struct {
	t  testing.TB
	rc *rpc.Client
}

func newClient(t testing.TB, rwc io.ReadWriteCloser, lsp bool) *client {
	framing := rpc.FramingLines
	if lsp {
		framing = rpc.FramingHeaders
	}
	rc := rpc.NewClient(context.Background(), rwc, framing)
	t.Cleanup(func() { rc.Close() })
	return &client{t: t, rc: rc}
}

// send sends a request and returns where its reply will come.
func (c *client) send(method string, params any) <-chan reply {
	ch := make(chan reply, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var r reply
		err := c.rc.Call(ctx, method, params, &r.Result)
		if err != nil && !errors.As(err, &r.Error) {
			r.Error = &rpcError{Code: 0, Message: err.Error()} // no reply: the connection or the timeout
		}
		ch <- r
	}()
	return ch
}

// call sends a request and waits for its reply.
func (c *client) call(method string, params any) reply {
	c.t.Helper()
	r := <-c.send(method, params)
	if r.Error != nil && r.Error.Code == 0 {
		c.t.Fatalf("%s: %s", method, r.Error.Message)
	}
	return r
}

// ok calls and decodes the result into out, failing on an error reply.
func (c *client) ok(method string, params, out any) {
	c.t.Helper()
	r := c.call(method, params)
	if r.Error != nil {
		c.t.Fatalf("%s %v: %v", method, params, r.Error)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			c.t.Fatalf("%s: decoding %s: %v", method, r.Result, err)
		}
	}
}

// fails calls and returns the error reply, failing on a result.
func (c *client) fails(method string, params any) *rpcError {
	c.t.Helper()
	r := c.call(method, params)
	if r.Error == nil {
		c.t.Fatalf("%s %v: want an error, got %s", method, params, r.Result)
	}
	return r.Error
}

// daemon is a toold process and what it wrote on stderr.
type daemon struct {
	cmd    *exec.Cmd
	stderr *testenv.Buffer
	exited chan struct{} // closed once cmd.Wait returned
}

// launch starts cmd with its stderr kept and a goroutine that waits for it.
func launch(t testing.TB, cmd *exec.Cmd) *daemon {
	t.Helper()
	d := &daemon{cmd: cmd, stderr: &testenv.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = d.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(d.exited) }()
	return d
}

// spoolArgs gives a daemon a spool root of its own unless args name one.
func spoolArgs(t testing.TB, args []string) []string {
	for _, a := range args {
		if strings.HasPrefix(a, "--spool-root") {
			return args
		}
	}
	return append(args, "--spool-root", filepath.Join(t.TempDir(), "spool"))
}

// startStdio starts the binary on stdio with args and connects a client.
func startStdio(t testing.TB, lsp bool, args ...string) *client {
	t.Helper()
	cmd := exec.Command(binPath, spoolArgs(t, args)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var afterStart []io.Closer
	stdout := outPipe(t, cmd, &afterStart) // not StdoutPipe, which Wait closes: see daemonProc.stdout
	d := launch(t, cmd)
	closeAll(afterStart)
	t.Cleanup(func() {
		stdin.Close()
		d.stop(t)
	})
	return newClient(t, pipes{stdout, stdin}, lsp)
}

// pipes are a child's stdout and stdin as one connection.
type pipes struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }

func (p pipes) Close() error { return errors.Join(p.w.Close(), p.ReadCloser.Close()) }

// stop waits for the daemon to exit, killing it after 10s, and shows its
// stderr when the test failed.
func (d *daemon) stop(t testing.TB) {
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		d.cmd.Process.Kill()
		<-d.exited
	}
	testenv.CheckNoRace(t, "the daemon", d.stderr.String())
	if t.Failed() {
		t.Logf("daemon stderr:\n%s", d.stderr.String())
	}
}

// startSocket starts the shared daemon on a socket of its own and returns a
// function that connects a new client.
func startSocket(t testing.TB, args ...string) func() *client {
	t.Helper()
	dir, err := os.MkdirTemp("", "toold-sock-") // short: sun_path has 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o700)
	sock := filepath.Join(dir, "s")
	cmd := exec.Command(binPath, append([]string{"serve", "--listen", sock}, spoolArgs(t, args)...)...)
	d := launch(t, cmd)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		d.stop(t)
		os.RemoveAll(dir)
	})
	waitSocket(t, d, sock)
	return func() *client {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		return newClient(t, conn, false)
	}
}

// waitSocket waits until the daemon d listens on sock.
func waitSocket(t testing.TB, d *daemon, sock string) {
	t.Helper()
	waitListening(t, sock, d.exited, d.stderr)
}

// waitListening waits until sock accepts a connection, and fails t if
// the daemon ends first (exited is closed once it is waited for) or does
// not listen within 10 s grown with the load (a daemon's start needs a
// CPU: three took more than 10 s in a quick run beside the others).
func waitListening(t testing.TB, sock string, exited <-chan struct{}, stderr *testenv.Buffer) {
	t.Helper()
	ended, d := false, testenv.Loaded(10*time.Second)
	if !testenv.Until(d, func() bool {
		select {
		case <-exited:
			ended = true
			return true
		default:
		}
		return dialable(sock)
	}) || ended {
		t.Fatalf("no daemon answers on %s within %v (it exited: %v)\n%s", sock, d, ended, daemonTail(stderr.String(), 3000))
	}
}

// dialable reports whether the unix socket sock accepts a connection.
func dialable(sock string) bool {
	c, err := net.Dial("unix", sock)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// mode is a way to reach a daemon.
type mode struct {
	name  string
	start func(t testing.TB, args ...string) *client
}

var modes = []mode{
	{"stdio", func(t testing.TB, args ...string) *client { return startStdio(t, false, args...) }},
	{"stdio-lsp", func(t testing.TB, args ...string) *client { return startStdio(t, true, args...) }},
	{"socket", func(t testing.TB, args ...string) *client { return startSocket(t, args...)() }},
}

// forModes runs f once per mode.
func forModes(t *testing.T, f func(t *testing.T, m mode)) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) { f(t, m) })
	}
}

// quickIn skips t in the quick run unless m is the mode named: for a case
// whose rules are the daemon's, the same on every transport (a daemon a
// mode is what it costs); TOOLD_LONG=1 runs it in every mode.
func (m mode) quickIn(t *testing.T, name string) {
	t.Helper()
	if !long() && m.name != name {
		t.Skipf("the quick run takes this case over %s only (the transport does not change it); TOOLD_LONG=1 runs every mode", name)
	}
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pacer lets a goroutine that attacks the daemon's reads (rewrites a file,
// swaps a directory) act, in the quick run, as many times as the replies
// received so far allow: its CPU follows the reads, not the clock (left to
// spin on its own, it burnt a core for as long as the reads took, longer on
// a loaded machine), and since the allowance comes a reply at a time the
// attack goes on while the rest of a batch is served. With the long
// variants it spins freely, as it always did.
type pacer struct {
	free          bool // no allowance: act as fast as it can
	allowed, used atomic.Int64
	more          chan struct{}
}

func newPacer() *pacer { return &pacer{free: long(), more: make(chan struct{}, 1)} }

// allow lets the attacker act n times more.
func (p *pacer) allow(n int) {
	if p.free {
		return
	}
	p.allowed.Add(int64(n))
	select {
	case p.more <- struct{}{}:
	default:
	}
}

// wait blocks until the attacker may act for the i-th time (from 0), and
// reports false once stop is closed.
func (p *pacer) wait(i int64, stop <-chan struct{}) bool {
	for !p.free && i >= p.allowed.Load() {
		select {
		case <-stop:
			return false
		case <-p.more:
		}
	}
	select {
	case <-stop:
		return false
	default:
		p.used.Store(i + 1)
		return true
	}
}

// TestBinarySources: this package's cached result depends on the sources
// of the binary it attacks, not only on the packages it imports.
func TestBinarySources(t *testing.T) { testenv.ConsultSources(t) }

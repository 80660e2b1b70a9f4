package adversarial

// The daemon side of the adversarial suite's harness: the built binary,
// started on stdio or on a socket, and a raw client that writes whatever it
// likes and reads replies when it chooses. Identifiers here start with
// "daemon" or "raw" so that the files side of the suite can add its own.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// daemonLong reports whether the long cases run (TOOLD_LONG=1 or -tags adversarial_long);
// the default run has a short variant of each.
func daemonLong() bool { return long() }

// daemonBinary is the built cmd/toold the TestMain shares (binPath).
// TOOLD_ADVERSARIAL_BIN names a binary to attack instead (an older build,
// to see the cases fail on it).
func daemonBinary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("TOOLD_ADVERSARIAL_BIN"); bin != "" {
		return bin
	}
	return binPath
}

// daemonProc is a toold process the test started.
type daemonProc struct {
	cmd        *exec.Cmd
	stderr     *testenv.Buffer
	exited     chan struct{} // closed once Wait has returned
	err        error         // Wait's; read after exited
	afterStart []io.Closer   // the child's ends of pipes, closed here once it started
}

// stdout gives p a pipe for its stdout and returns the end to read, open
// until the test ends. exec's StdoutPipe would be closed by Wait, which
// run's waiter calls as soon as the process exits: a reply written just
// before a daemon ends was lost unread on a loaded machine ("read |0: file
// already closed").
func (p *daemonProc) stdout(t testing.TB) *os.File {
	t.Helper()
	return outPipe(t, p.cmd, &p.afterStart)
}

// outPipe makes cmd's stdout a pipe whose reading end it returns, closed
// when the test ends; the writing end goes to *afterStart, for the caller
// to close once cmd has started.
func outPipe(t testing.TB, cmd *exec.Cmd, afterStart *[]io.Closer) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd.Stdout = w
	*afterStart = append(*afterStart, w)
	return r
}

// closeAll closes cs.
func closeAll(cs []io.Closer) {
	for _, c := range cs {
		c.Close()
	}
}

// daemonStart starts the binary with args. nofile, when positive, is the
// process's descriptor limit, set as `ulimit -n` would, before it starts.
// It is killed at the end of the test if still running.
func daemonStart(t testing.TB, nofile int, args ...string) *daemonProc {
	t.Helper()
	bin := daemonBinary(t)
	argv := append([]string{bin}, args...)
	if nofile > 0 {
		if _, err := exec.LookPath("prlimit"); err != nil {
			t.Skip("needs prlimit (util-linux) to set the daemon's descriptor limit")
		}
		argv = append([]string{"prlimit", "--nofile=" + strconv.Itoa(nofile)}, argv...)
	}
	p := &daemonProc{cmd: exec.Command(argv[0], argv[1:]...), stderr: &testenv.Buffer{}, exited: make(chan struct{})}
	p.cmd.Stderr = p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return p
}

// run starts p and its waiter.
func (p *daemonProc) run(t testing.TB) {
	t.Helper()
	err := p.cmd.Start()
	closeAll(p.afterStart)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
		testenv.CheckNoRace(t, "the daemon", p.stderr.String())
		if t.Failed() {
			t.Logf("daemon stderr:\n%s", daemonTail(p.stderr.String(), 3000))
		}
	})
}

// wait waits up to d for p to exit and returns its exit code, or -1.
func (p *daemonProc) wait(d time.Duration) int {
	select {
	case <-p.exited:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		return -1
	}
}

// peakRSS returns the process's peak resident set (VmHWM) in bytes.
func (p *daemonProc) peakRSS(t testing.TB) int64 {
	t.Helper()
	return vmHWM(t, p.cmd.Process.Pid)
}

// vmHWM is process pid's peak resident set (VmHWM) in bytes.
func vmHWM(t testing.TB, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

func daemonTail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// daemonStdio starts `toold serve` on pipes; the spool root is the test's.
func daemonStdio(t testing.TB, args ...string) (*daemonProc, *rawClient) {
	t.Helper()
	return daemonStdioEnv(t, nil, args...)
}

// daemonStdioEnv is daemonStdio with env added to the daemon's environment.
func daemonStdioEnv(t testing.TB, env []string, args ...string) (*daemonProc, *rawClient) {
	t.Helper()
	args = append([]string{"serve", "--spool-root", filepath.Join(t.TempDir(), "spool")}, args...)
	p := daemonStart(t, 0, args...)
	if env != nil {
		p.cmd.Env = append(os.Environ(), env...)
	}
	return p, p.serve(t)
}

// serve starts p with a pipe as its stdin and its stdout, and returns a
// client on them: a daemon serving stdio.
func (p *daemonProc) serve(t testing.TB) *rawClient {
	t.Helper()
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := p.stdout(t)
	p.run(t)
	return newRawClient(t, in, out)
}

// daemonShared starts `toold serve --listen` on a socket in a private
// directory of the test's, with a descriptor limit when nofile > 0, and
// waits until it answers. It returns the process and the socket's path.
func daemonShared(t testing.TB, nofile int, args ...string) (*daemonProc, string) {
	t.Helper()
	dir := daemonPrivateDir(t)
	sock := filepath.Join(dir, "toold.sock")
	args = append([]string{"serve", "--listen", sock, "--spool-root", filepath.Join(dir, "spool")}, args...)
	p := daemonStart(t, nofile, args...)
	p.run(t)
	waitListening(t, sock, p.exited, p.stderr)
	return p, sock
}

// daemonPrivateDir is a 0700 directory with a short path (a socket's path
// must fit in 108 bytes, which t.TempDir's may not).
func daemonPrivateDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tadv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// daemonDial connects a raw client to the socket.
func daemonDial(t testing.TB, sock string) *rawClient {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return newRawClient(t, c, c)
}

// rawMessage is any message the daemon writes.
type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// rawClient speaks newline-delimited JSON to a daemon. Nothing reads its
// replies until the test calls next, so it can also be a client that never
// reads.
type rawClient struct {
	t   testing.TB
	w   io.WriteCloser
	r   io.Reader
	br  *bufio.Reader
	wmu sync.Mutex
}

func newRawClient(t testing.TB, w io.WriteCloser, r io.Reader) *rawClient {
	return &rawClient{t: t, w: w, r: r}
}

// send writes one message, a JSON text or a value to encode, and a newline.
func (c *rawClient) send(msg any) error {
	b, ok := msg.([]byte)
	if !ok {
		if s, isString := msg.(string); isString {
			b = []byte(s)
		} else {
			var err error
			if b, err = json.Marshal(msg); err != nil {
				c.t.Fatal(err)
			}
		}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// request builds a request with a numeric id.
func rawRequest(id int, method string, params any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}
}

// next reads the next message, failing the test after d.
func (c *rawClient) next(d time.Duration) rawMessage {
	c.t.Helper()
	m, err := c.tryNext(d)
	if err != nil {
		c.t.Fatal(err)
	}
	return m
}

// tryNext reads the next message within d.
func (c *rawClient) tryNext(d time.Duration) (rawMessage, error) {
	line, err := c.nextLine(d)
	if err != nil {
		return rawMessage{}, err
	}
	var m rawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return rawMessage{}, fmt.Errorf("a reply that is not JSON: %q", daemonTail(string(line), 200))
	}
	return m, nil
}

// nextLine reads the next message's bytes within d, undecoded.
func (c *rawClient) nextLine(d time.Duration) ([]byte, error) {
	if c.br == nil {
		c.br = bufio.NewReaderSize(c.r, 1<<20)
	}
	type res struct {
		line []byte
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		line, err := c.br.ReadBytes('\n')
		ch <- res{line, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("reading a reply: %w", r.err)
		}
		return r.line, nil
	case <-time.After(d):
		// The reader goroutine ends when the connection closes at cleanup.
		return nil, fmt.Errorf("no reply within %v", d)
	}
}

// call sends a request and reads messages until its reply, within d.
func (c *rawClient) call(id int, method string, params any, d time.Duration) rawMessage {
	c.t.Helper()
	if err := c.send(rawRequest(id, method, params)); err != nil {
		c.t.Fatal(err)
	}
	want := strconv.Itoa(id)
	deadline := time.Now().Add(d)
	for {
		m := c.next(time.Until(deadline))
		if string(m.ID) == want {
			return m
		}
	}
}

// daemonFile writes a file of n lines of width bytes each in dir.
func daemonFile(t testing.TB, dir string, lines, width int) string {
	t.Helper()
	line := strings.Repeat("x", width-1) + "\n"
	path := filepath.Join(dir, "lines.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat(line, lines)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// daemonForwarded starts `toold --remote=auto` on pipes, as an editor
// would: it starts the shared daemon in a runtime directory of the test's
// and forwards to it. The daemon (found by its spool lock file) is killed
// at the end of the test.
func daemonForwarded(t testing.TB) (*daemonProc, *rawClient) {
	t.Helper()
	runtimeDir := daemonPrivateDir(t)
	p := daemonStart(t, 0, "--remote=auto")
	p.cmd.Env = append(os.Environ(), "TOOLD_RUNTIME_DIR="+runtimeDir)
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := p.stdout(t)
	t.Cleanup(func() {
		root := filepath.Join(runtimeDir, "toold-"+strconv.Itoa(os.Geteuid()))
		daemonKillShared(root)
		logs, _ := filepath.Glob(filepath.Join(root, "*.log")) // the daemon's stderr
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			testenv.CheckNoRace(t, "the shared daemon", string(b))
		}
	})
	p.run(t)
	return p, newRawClient(t, in, out)
}

// daemonKillShared kills the daemons whose spool lock files are in root.
func daemonKillShared(root string) {
	locks, _ := filepath.Glob(filepath.Join(root, "*.lock"))
	for _, l := range locks {
		if pid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(l), ".lock")); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

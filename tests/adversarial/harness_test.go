package adversarial

import (
	"bufio"
	"bytes"
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
)

var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toold-adversarial-")
	if err != nil {
		panic(err)
	}
	binPath = filepath.Join(dir, "toold")
	// A plain build: the long cases make 100,000 requests, and -race is
	// for the packages' own tests.
	if out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/toold").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building toold: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// long reports whether the long variants run: TOOLD_LONG=1 or the
// adversarial_long build tag.
func long() bool { return longTag || os.Getenv("TOOLD_LONG") == "1" }

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%d %s %s", e.Code, e.Message, e.Data) }

// reply is a response: a result or an error.
type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
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

// client is one connection to a daemon: requests are written in its
// framing and replies matched to them by id, so that many can be in flight.
type client struct {
	t   testing.TB
	lsp bool

	wmu sync.Mutex
	w   io.Writer

	mu      sync.Mutex
	next    int64
	pending map[int64]chan reply
	done    chan struct{}
}

func newClient(t testing.TB, r io.Reader, w io.Writer, lsp bool) *client {
	c := &client{t: t, lsp: lsp, w: w, pending: make(map[int64]chan reply), done: make(chan struct{})}
	go c.readLoop(r)
	return c
}

func (c *client) readLoop(r io.Reader) {
	defer close(c.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		body, err := readMessage(br, c.lsp)
		if err != nil {
			return
		}
		var m struct {
			ID json.RawMessage `json:"id"`
			reply
		}
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("the daemon wrote a message that is not JSON: %q", body)
			return
		}
		id, err := strconv.ParseInt(string(m.ID), 10, 64)
		if err != nil {
			continue // a notification
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- m.reply
		}
	}
}

func readMessage(br *bufio.Reader, lsp bool) ([]byte, error) {
	if !lsp {
		return br.ReadBytes('\n')
	}
	n := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, n)
	_, err := io.ReadFull(br, body)
	return body, err
}

// send writes a request and returns where its reply will come.
func (c *client) send(method string, params any) <-chan reply {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan reply, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.lsp {
		fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	} else {
		c.w.Write(append(body, '\n'))
	}
	return ch
}

// call sends a request and waits for its reply.
func (c *client) call(method string, params any) reply {
	c.t.Helper()
	select {
	case r := <-c.send(method, params):
		return r
	case <-c.done:
		c.t.Fatalf("%s: the daemon closed the connection", method)
	case <-time.After(30 * time.Second):
		c.t.Fatalf("%s: no reply in 30s", method)
	}
	return reply{}
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
	stderr *lockedBuffer
	exited chan struct{} // closed once cmd.Wait returned
}

// launch starts cmd with its stderr kept and a goroutine that waits for it.
func launch(t testing.TB, cmd *exec.Cmd) *daemon {
	t.Helper()
	d := &daemon{cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = d.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(d.exited) }()
	return d
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
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
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	d := launch(t, cmd)
	t.Cleanup(func() {
		stdin.Close()
		d.stop(t)
	})
	return newClient(t, stdout, stdin, lsp)
}

// stop waits for the daemon to exit, killing it after 10s, and shows its
// stderr when the test failed.
func (d *daemon) stop(t testing.TB) {
	select {
	case <-d.exited:
	case <-time.After(10 * time.Second):
		d.cmd.Process.Kill()
		<-d.exited
	}
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
		t.Cleanup(func() { conn.Close() })
		return newClient(t, conn, conn, false)
	}
}

// waitSocket waits until the daemon d listens on sock.
func waitSocket(t testing.TB, d *daemon, sock string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		conn, err := net.Dial("unix", sock)
		if err == nil {
			conn.Close()
			return
		}
		select {
		case <-d.exited:
			t.Fatalf("the daemon exited: %s", d.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon does not listen on %s: %v\n%s", sock, err, d.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
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

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/index"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/lifecycle"
)

// The same cases run against a daemon in this process (over net.Pipe) and
// against the built binary over stdio, as an editor would spawn it.

// binPath is the built toold, shared with the other packages' tests
// (testenv.Toold): built with -race when the tests are.
var binPath string

func TestMain(m *testing.M) {
	var err error
	if binPath, err = testenv.Toold(); err != nil {
		fmt.Fprintf(os.Stderr, "building toold: %v\n", err)
		os.Exit(1)
	}
	// The search index's files go to a cache of the tests' own, for the
	// daemons in this process and the binaries alike.
	cache, err := os.MkdirTemp("", "toold-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	// No user config file: the tests give their flags (TestConfig sets
	// a file of its own).
	os.Setenv(configEnv, os.DevNull)
	testenv.Parallel()
	code := m.Run()
	endPlainSocket()
	os.RemoveAll(cache)
	testenv.Exit(code)
}

// message is any JSON-RPC message the daemon writes.
type message struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
	Method string          `json:"method"` // of a notification
	Params json.RawMessage `json:"params"`
}

type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *wireError) Error() string { return fmt.Sprintf("%d %s %s", e.Code, e.Message, e.Data) }

// peer is a client of a daemon: it writes raw messages in the framing it
// chose and matches replies to requests by id.
type peer struct {
	t       testing.TB
	w       io.Writer
	headers bool
	// before and after are header lines ("Name: value\r\n") written
	// before and after Content-Length, in header framing.
	before, after string
	nextID        int
	// replyWait bounds each wait for a reply; 0 means 30 s.
	replyWait time.Duration

	mu      sync.Mutex
	replies map[string]chan message
	orphans chan message // replies with a null id
	notes   []message    // notifications, in the order they came
	done    chan struct{}
	// spoolRoot is the daemon's spool root.
	spoolRoot string
	// daemonPid is the pid of the daemon's process, when known without a
	// call: this one in process, the child's over stdio (0 when it is a
	// forwarder's shared daemon: daemonProcess finds it).
	daemonPid int
	// wait, for a separate process, waits for it to exit.
	wait  func() (int, error)
	close func()
}

func (p *peer) readLoop(r io.Reader) {
	defer close(p.done)
	br := bufio.NewReaderSize(r, 64<<10) // ReadBytes and ReadFull go past it
	for {
		var body []byte
		if p.headers {
			n := -1
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				line = strings.TrimRight(line, "\r\n")
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					n, _ = strconv.Atoi(v)
				}
			}
			body = make([]byte, n)
			if _, err := io.ReadFull(br, body); err != nil {
				return
			}
		} else {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			body = line
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			p.t.Errorf("daemon wrote a message that is not JSON: %q", body)
			return
		}
		if m.Method != "" {
			// Kept before any later reply is passed on: notes counted once
			// a reply has come are those that came before it.
			p.mu.Lock()
			p.notes = append(p.notes, m)
			p.mu.Unlock()
			continue
		}
		id := string(m.ID)
		if id == "" || id == "null" {
			p.orphans <- m
			continue
		}
		p.mu.Lock()
		ch := p.replies[id]
		delete(p.replies, id)
		p.mu.Unlock()
		if ch == nil {
			p.t.Errorf("reply to unknown id %s", id)
			continue
		}
		ch <- m
	}
}

// send writes one raw message in the peer's framing.
func (p *peer) send(raw []byte) {
	p.t.Helper()
	var err error
	if p.headers {
		_, err = fmt.Fprintf(p.w, "%sContent-Length: %d\r\n%s\r\n%s", p.before, len(raw), p.after, raw)
	} else {
		_, err = p.w.Write(append(raw, '\n'))
	}
	if err != nil {
		p.t.Fatalf("writing to the daemon: %v", err)
	}
}

// sendPadded writes one message of head, n bytes of fill and tail, in the
// peer's framing, without holding it in memory: the oversize messages (16
// and 20 MiB) were built whole, three copies of them under -race, and cost
// more page faults than the daemon's work on them.
func (p *peer) sendPadded(head string, n int, fill byte, tail string) {
	p.t.Helper()
	size := len(head) + n + len(tail)
	chunk := bytes.Repeat([]byte{fill}, min(n, 64<<10))
	var err error
	write := func(b []byte) {
		if err == nil {
			_, err = p.w.Write(b)
		}
	}
	if p.headers {
		write([]byte(fmt.Sprintf("%sContent-Length: %d\r\n%s\r\n", p.before, size, p.after)))
	}
	write([]byte(head))
	for left := n; left > 0; left -= len(chunk) {
		write(chunk[:min(left, len(chunk))])
	}
	write([]byte(tail))
	if !p.headers {
		write([]byte{'\n'})
	}
	if err != nil {
		p.t.Fatalf("writing to the daemon: %v", err)
	}
}

// start sends a request and returns the channel its reply comes on.
func (p *peer) start(method string, params any) (id string, reply chan message) {
	p.t.Helper()
	p.mu.Lock()
	p.nextID++
	id = strconv.Itoa(p.nextID)
	reply = make(chan message, 1)
	p.replies[id] = reply
	p.mu.Unlock()
	req := map[string]any{"jsonrpc": "2.0", "id": p.nextID, "method": method}
	if params != nil {
		req["params"] = params
	}
	b, err := json.Marshal(req)
	if err != nil {
		p.t.Fatal(err)
	}
	p.send(b)
	return id, reply
}

func (p *peer) waitFor() time.Duration { return cmp.Or(p.replyWait, 30*time.Second) }

func (p *peer) await(reply chan message) message {
	p.t.Helper()
	select {
	case m := <-reply:
		return m
	case <-time.After(p.waitFor()):
		p.t.Fatalf("no reply within %v", p.waitFor())
	case <-p.done:
		select {
		case m := <-reply:
			return m
		default:
		}
		p.t.Fatal("the daemon closed the connection")
	}
	return message{}
}

// call sends a request and decodes its result into out (when not nil);
// it returns the error reply, if any.
func (p *peer) call(method string, params, out any) *wireError {
	p.t.Helper()
	_, reply := p.start(method, params)
	m := p.await(reply)
	if m.Error != nil {
		return m.Error
	}
	if out != nil {
		if err := json.Unmarshal(m.Result, out); err != nil {
			p.t.Fatalf("%s: decoding result %s: %v", method, m.Result, err)
		}
	}
	return nil
}

// mustCall is call that fails the test on an error reply.
func (p *peer) mustCall(method string, params, out any) {
	p.t.Helper()
	if err := p.call(method, params, out); err != nil {
		p.t.Fatalf("%s %v: %v", method, params, err)
	}
}

func (p *peer) notify(method string, params any) {
	p.t.Helper()
	req := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		req["params"] = params
	}
	b, _ := json.Marshal(req)
	p.send(b)
}

// orphan waits for a reply with a null id (to a message that was not JSON).
func (p *peer) orphan() message {
	p.t.Helper()
	select {
	case m := <-p.orphans:
		return m
	case <-time.After(p.waitFor()):
		p.t.Fatalf("no reply within %v", p.waitFor())
	}
	return message{}
}

func newPeer(t testing.TB, w io.Writer, r io.Reader, headers bool) *peer {
	p := &peer{t: t, w: w, headers: headers, replies: make(map[string]chan message),
		orphans: make(chan message, 16), done: make(chan struct{})}
	go p.readLoop(r)
	return p
}

// mode starts a daemon and a peer of it.
type mode struct {
	name  string
	start func(t testing.TB, headers bool, env ...string) *peer
}

var modes = []mode{
	{"in-process", startInProcess},
	{"process", startProcess},
	{"forwarded", startForwarded},
}

func startInProcess(t testing.TB, headers bool, _ ...string) *peer {
	return inProcessOn(t, filepath.Join(t.TempDir(), "spool"), headers)
}

// inProcessOn starts a daemon in this process on the spool root root.
func inProcessOn(t testing.TB, root string, headers bool) *peer {
	d, err := lifecycle.New(lifecycle.Options{Version: "test", SpoolRoot: root, Index: &index.Options{},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	server, client := net.Pipe()
	served := make(chan int, 1)
	go func() { served <- d.ServeConn(context.Background(), server) }()
	p := newPeer(t, client, client, headers)
	p.spoolRoot = root
	p.daemonPid = os.Getpid()
	p.wait = func() (int, error) { return <-served, nil }
	var once sync.Once
	p.close = func() {
		once.Do(func() {
			client.Close()
			<-p.done
			d.Close()
		})
	}
	t.Cleanup(p.close)
	return p
}

// startForwarded starts toold --remote=auto with a runtime dir of its own,
// so that it starts a shared daemon for this test; the daemon exits a
// second after its last client.
func startForwarded(t testing.TB, headers bool, env ...string) *peer {
	runtime := t.TempDir()
	root := filepath.Join(runtime, "toold-"+strconv.Itoa(os.Geteuid()))
	t.Cleanup(func() {
		// The daemon goes when idle; make sure it has (its lock file goes with it).
		var locks []string
		if !testenv.Until(15*time.Second, func() bool {
			locks, _ = filepath.Glob(filepath.Join(root, "*.lock"))
			return len(locks) == 0
		}) {
			for _, l := range locks {
				pid, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(l), ".lock"))
				if pid > 0 {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			t.Errorf("the shared daemon did not exit when idle: %v", locks)
			return
		}
		logs, _ := filepath.Glob(filepath.Join(root, "*.log"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			testenv.CheckNoRace(t, "the shared daemon", string(b))
		}
	})
	p := startBinary(t, headers, []string{"--remote=auto", "--idle-timeout", "1s", "--log-level", "debug"},
		append(env, "TOOLD_RUNTIME_DIR="+runtime)...)
	p.spoolRoot = root
	p.daemonPid = 0 // the shared daemon's: daemonProcess finds it
	return p
}

func startProcess(t testing.TB, headers bool, env ...string) *peer {
	return spoolProcess(t, binPath, headers, nil, env...)
}

// spoolProcess runs the toold binary exe on a spool root of its own, with
// flags, and serves a peer on its stdio.
func spoolProcess(t testing.TB, exe string, headers bool, flags []string, env ...string) *peer {
	root := filepath.Join(t.TempDir(), "spool")
	p := startExe(t, exe, headers, append([]string{"--spool-root", root, "--log-level", "debug"}, flags...), env...)
	p.spoolRoot = root
	return p
}

// plainProcess is startProcess with toold built without -race (the binary
// tests/adversarial runs, from the same cache), for the long run's cases
// whose cost under -race is volume that one goroutine handles (a 16 MiB
// message decoded, a 100 MiB spool), not what the race detector checks.
// The quick run never builds it: in a cold build cache it compiles the
// standard library a second time (60 CPU-seconds).
func plainProcess(t testing.TB, headers bool) *peer {
	testenv.SkipUnlessLong(t, "toold built without -race")
	exe, err := testenv.Build(false, "")
	if err != nil {
		t.Fatal(err)
	}
	return spoolProcess(t, exe, headers, nil)
}

// startBinary runs the built toold with args and serves a peer on its stdio.
func startBinary(t testing.TB, headers bool, args []string, env ...string) *peer {
	return startExe(t, binPath, headers, args, env...)
}

// startExe runs the toold binary exe with args and serves a peer on its stdio.
func startExe(t testing.TB, exe string, headers bool, args []string, env ...string) *peer {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := newPeer(t, in, out, headers)
	p.daemonPid = cmd.Process.Pid
	exited := make(chan struct{})
	var code int
	var werr error
	go func() {
		werr = cmd.Wait()
		code = cmd.ProcessState.ExitCode()
		close(exited)
	}()
	p.wait = func() (int, error) {
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Fatal("the daemon did not exit within 30s")
		}
		return code, werr
	}
	p.close = func() {
		in.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}
	t.Cleanup(func() {
		p.close()
		testenv.CheckNoRace(t, "the daemon", stderr.String())
		if t.Failed() {
			t.Logf("daemon stderr:\n%s", stderr.String())
		}
	})
	return p
}

// forEachMode runs f in each mode, in both framings, in parallel; and it
// makes t parallel too, so the case runs beside the package's other
// parallel cases (its cases make daemons of their own and mostly wait on
// them). A test that cannot run beside others calls t.Setenv before it
// (which keeps t sequential); one that called t.Parallel itself is fine.
//
// With TOOLD_LONG=1 (CI) every case runs in all six. The quick run runs
// each case in one of them, chosen by the test's name (quickMode), as
// gopls runs its default mode alone in -short: across the package every
// mode and framing runs some of the cases on every quick run
// (TestQuickModesCoverAll holds that). The race detector in the binaries
// is checked too (startExe).
func forEachMode(t *testing.T, f func(t *testing.T, start func(t testing.TB) *peer)) {
	parallel(t)
	quick := quickMode(t.Name())
	for i, mf := range modeFramings() {
		if i != quick && !testenv.Long() {
			continue
		}
		t.Run(mf.name, func(t *testing.T) {
			t.Parallel()
			f(t, func(t testing.TB) *peer { return mf.mode.start(t, mf.headers) })
		})
	}
}

// framings are the framings (headers or not) a test that picks its own
// mode runs in: both with TOOLD_LONG=1, in the quick run the one of its
// quickMode.
func framings(t testing.TB) []bool {
	if testenv.Long() {
		return []bool{false, true}
	}
	return []bool{modeFramings()[quickMode(t.Name())].headers}
}

// modeFraming is a mode and a framing: a subtest of forEachMode.
type modeFraming struct {
	name    string // mode/framing, as the subtest is named
	mode    mode
	headers bool
}

// modeFramings lists the six, in-process with line framing first.
func modeFramings() []modeFraming {
	var all []modeFraming
	for _, m := range modes {
		for _, headers := range []bool{false, true} {
			framing := "lines"
			if headers {
				framing = "headers"
			}
			all = append(all, modeFraming{m.name + "/" + framing, m, headers})
		}
	}
	return all
}

// quickWeights maps a test name's hash to an index in modeFramings: two
// thirds of the tests run in process, a sixth over stdio and a sixth
// forwarded. A process costs a start of the -race binary (0.15-0.2
// CPU-seconds) and forwarded two (the forwarder and its shared daemon),
// while what those modes add, the transport, is the same for every test:
// some tests in each (TestQuickModesCoverAll) prove it in the quick run,
// every test in every mode with TOOLD_LONG=1.
var quickWeights = []int{0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 4, 5}

// quickMode is the index in modeFramings of the mode and framing that the
// quick run runs the test named test in.
func quickMode(test string) int {
	h := fnv.New32a()
	h.Write([]byte(test))
	return quickWeights[h.Sum32()%uint32(len(quickWeights))]
}

// wholeTable reports whether a forEachMode case runs the whole of a long
// table: with TOOLD_LONG=1, in every mode. The quick run runs a sample of
// it (sample): the rules of the rows are their packages' own unit tests';
// what this package adds is the daemon and a transport, which a few rows
// show as well as all of them.
func wholeTable(testing.TB) bool {
	return testenv.Long()
}

// sample returns all when wholeTable(t), else the rows of all named few.
func sample(t testing.TB, all []string, few ...string) []string {
	if wholeTable(t) {
		return all
	}
	var rows []string
	for _, r := range all {
		if slices.Contains(few, r) {
			rows = append(rows, r)
		}
	}
	if len(rows) != len(few) {
		t.Fatalf("sample %v: not all in the table %v", few, all)
	}
	return rows
}

// parallel calls t.Parallel unless t is parallel already or has set the
// environment (t.Parallel panics then; testing does not say which is so).
func parallel(t *testing.T) {
	defer func() { _ = recover() }()
	t.Parallel()
}

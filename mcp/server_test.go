package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/lifecycle"
	"github.com/toold/toold/rpc"
)

// daemon is a real toold daemon in-process, and the connect func that the
// Server gets: one pipe, and one ServeConn, per call.
type daemon struct {
	d     *lifecycle.Daemon
	conns sync.WaitGroup
}

func newDaemon(t *testing.T) *daemon {
	d, err := lifecycle.New(lifecycle.Options{Version: "test", SpoolRoot: filepath.Join(t.TempDir(), "spool"), Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	dm := &daemon{d: d}
	t.Cleanup(func() {
		dm.conns.Wait()
		d.Close()
	})
	return dm
}

func (dm *daemon) connect(ctx context.Context) (*rpc.Client, error) {
	server, client := net.Pipe()
	dm.conns.Go(func() { dm.d.ServeConn(ctx, server) })
	return rpc.NewClient(ctx, client, rpc.FramingLines), nil
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// session is an MCP client session with a Server run on io.Pipes.
type session struct {
	*sdk.ClientSession
	done chan error // Run's error
}

// open runs srv for one MCP session and connects an SDK client to it.
func open(t *testing.T, srv *Server) *session {
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()   // client → server
	outR, outW := io.Pipe() // server → client
	s := &session{done: make(chan error, 1)}
	go func() { s.done <- srv.Run(ctx, inR, outW) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s.ClientSession = cs
	t.Cleanup(func() {
		s.close(t)
		cancel()
	})
	return s
}

// close ends the MCP session and waits for Run, which must return nil.
func (s *session) close(t *testing.T) {
	t.Helper()
	s.ClientSession.Close()
	select {
	case err, ok := <-s.done:
		if ok && err != nil {
			t.Errorf("Run: %v", err)
		}
		if ok {
			close(s.done)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after the client went away")
	}
}

func start(t *testing.T) (*session, *daemon) {
	dm := newDaemon(t)
	return open(t, NewServer("test", dm.connect, testLogger(t))), dm
}

// startStructured is start with --structured: results carry structuredContent.
func startStructured(t *testing.T) (*session, *daemon) {
	dm := newDaemon(t)
	return open(t, structuredServer(dm.connect, t)), dm
}

func structuredServer(connect func(context.Context) (*rpc.Client, error), t *testing.T) *Server {
	srv := NewServer("test", connect, testLogger(t))
	srv.Structured = true
	return srv
}

// call calls a tool and returns its text content joined, and the result.
func (s *session) call(t *testing.T, tool string, args map[string]any) (string, *sdk.CallToolResult) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n"), res
}

// structured decodes a result's structuredContent into v.
func structured(t *testing.T, res *sdk.CallToolResult, v any) {
	t.Helper()
	if res.StructuredContent == nil {
		t.Fatal("no structuredContent")
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
}

// writeFile writes content to name in a new temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	return testenv.WriteFile(t, filepath.Join(t.TempDir(), name), []byte(content))
}

func TestListTools(t *testing.T) {
	t.Parallel()
	s, _ := start(t)
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"read":      {"path", "offset", "limit", "maxBytes", "maxLineChars", "outline", "ifChanged"},
		"readBytes": {"path", "startByte", "maxBytes"},
		"page":      {"spool", "offset", "limit", "maxBytes", "maxLineChars", "startByte", "clean", "outline", "ifChanged"},
		"exec": {"command", "argv", "cwd", "env", "stdin", "timeoutMs", "maxLines", "maxBytes",
			"preview", "maxLineChars", "mergeStderr", "clean", "yieldMs", "background", "tty", "cols", "rows"},
		"stats":         nil,
		"process_read":  {"id", "since", "maxLines", "maxBytes", "preview", "maxLineChars", "clean"},
		"process_wait":  {"id", "timeoutMs", "until", "maxLines", "maxBytes", "preview", "maxLineChars", "clean"},
		"process_write": {"id", "stdin", "close", "cols", "rows"},
		"process_kill":  {"id", "signal"},
		"process_list":  nil,
		"grep":          {"pattern", "literal", "ignoreCase", "path", "spool", "glob", "noIgnore", "context", "limit", "maxLineChars", "maxBytes"},
		"find":          {"pattern", "path", "type", "noIgnore", "limit"},
		"ls":            {"path", "limit", "all", "noIgnore"},
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		schema, _ := tool.InputSchema.(map[string]any)
		if schema["type"] != "object" {
			t.Errorf("%s: schema type %v", tool.Name, schema["type"])
		}
		props, _ := schema["properties"].(map[string]any)
		for _, p := range want[tool.Name] {
			if d, _ := props[p].(map[string]any); d == nil || d["description"] == nil && !strings.Contains(tool.Description, " as in ") {
				t.Errorf("%s: schema lacks %s, or its description (or a tool that has it)", tool.Name, p)
			}
		}
		if len(props) != len(want[tool.Name]) {
			t.Errorf("%s: %d params, want %d", tool.Name, len(props), len(want[tool.Name]))
		}
	}
	slices.Sort(names)
	if got := strings.Join(names, " "); got != "exec find grep ls page process_kill process_list process_read process_wait process_write read readBytes stats" {
		t.Errorf("tools: %s", got)
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	s, _ := startStructured(t)
	path := writeFile(t, "f.txt", "one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n")
	text, res := s.call(t, "read", map[string]any{"path": path, "limit": 2})
	want := "     1\tone\n     2\ttwo\n[Showing lines 1-2 of 5. Use offset=3 to continue]"
	if text != want || res.IsError {
		t.Errorf("got %q (isError %v), want %q", text, res.IsError, want)
	}
	var w struct {
		Content  string
		Next     struct{ Offset int }
		EndLine  int
		Notice   string
		PathJSON string `json:"path"`
	}
	structured(t, res, &w)
	if w.Content != "one\r\ntwo\r\n" || w.Next.Offset != 3 || w.EndLine != 2 {
		t.Errorf("structuredContent: %+v", w)
	}

	text, _ = s.call(t, "read", map[string]any{"path": path, "offset": 5})
	if text != "     5\tfive" {
		t.Errorf("last line: got %q", text)
	}
}

func TestReadBytes(t *testing.T) {
	t.Parallel()
	s, _ := startStructured(t)
	path := writeFile(t, "f.txt", "alpha\nbeta\ngamma\n")
	text, res := s.call(t, "readBytes", map[string]any{"path": path, "startByte": 8, "maxBytes": 6})
	if !strings.HasPrefix(text, "     2\tbeta\n[") || res.IsError {
		t.Errorf("got %q (isError %v)", text, res.IsError)
	}
	var w struct{ Next struct{ StartByte int } }
	structured(t, res, &w)
	if w.Next.StartByte != 11 || !strings.Contains(text, "startByte=11") {
		t.Errorf("next: %+v; text %q", w, text)
	}
}

func TestExecAndPage(t *testing.T) {
	t.Parallel()
	dm := newDaemon(t)
	s := open(t, structuredServer(dm.connect, t))
	text, res := s.call(t, "exec", map[string]any{"command": "seq 1 5000"})
	if res.IsError || !strings.HasPrefix(text, "exit status 0\n--- stdout ---\n1\n2\n") || !strings.HasSuffix(text, "4999\n5000\n"+lastLine(text)) {
		t.Fatalf("got %q", text)
	}
	m := regexp.MustCompile(`\n\[\.\.\. lines (\d+)-(\d+) omitted \([0-9.]+ KB\); page spool=(\S+) offset=(\d+) to read them \.\.\.\]\n`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no omitted line in %q", text)
	}
	from, to, spool := m[1], m[2], m[3]
	if m[4] != from {
		t.Errorf("page offset %s, omitted from %s", m[4], from)
	}
	var r struct {
		ExitCode int
		Stdout   struct {
			Omitted struct{ FromLine, ToLine int }
			Spool   struct{ ID, Path string }
		}
	}
	structured(t, res, &r)
	if fmt.Sprint(r.Stdout.Omitted.FromLine) != from || fmt.Sprint(r.Stdout.Omitted.ToLine) != to || r.Stdout.Spool.ID != spool {
		t.Errorf("text names lines %s-%s of %s; structuredContent %+v", from, to, spool, r.Stdout)
	}

	text, res = s.call(t, "page", map[string]any{"spool": spool, "offset": r.Stdout.Omitted.FromLine, "limit": 3})
	n := r.Stdout.Omitted.FromLine
	want := fmt.Sprintf("%6d\t%d\n%6d\t%d\n%6d\t%d\n[Showing lines %d-%d of 5000. Use offset=%d to continue]", n, n, n+1, n+1, n+2, n+2, n, n+2, n+3)
	if text != want || res.IsError {
		t.Errorf("page: got %q, want %q", text, want)
	}

	// The MCP session's end is the toold session's: its spool goes.
	if _, err := os.Stat(r.Stdout.Spool.Path); err != nil {
		t.Fatalf("spool while the session is open: %v", err)
	}
	s.close(t)
	dm.conns.Wait()
	if _, err := os.Stat(r.Stdout.Spool.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("spool after the session ended: %v", err)
	}
}

func lastLine(s string) string { return s[strings.LastIndexByte(s, '\n')+1:] }

func TestExecStatus(t *testing.T) {
	t.Parallel()
	s, _ := start(t)
	text, _ := s.call(t, "exec", map[string]any{"command": "echo out; echo err >&2; exit 3"})
	if want := "exit status 3\n--- stdout ---\nout\n--- stderr ---\nerr"; text != want {
		t.Errorf("got %q, want %q", text, want)
	}
	text, _ = s.call(t, "exec", map[string]any{"argv": []string{"sleep", "10"}, "timeoutMs": 100})
	if !strings.HasPrefix(text, "timed out\n[Timed out") {
		t.Errorf("timeout: got %q", text)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	s, _ := start(t)
	missing := filepath.Join(t.TempDir(), "missing.txt")
	for _, tt := range []struct {
		tool string
		args map[string]any
		code string
	}{
		{"read", map[string]any{"path": missing}, "-32001"},
		{"readBytes", map[string]any{"path": t.TempDir()}, "-32003"},
		{"read", map[string]any{"path": missing, "offset": -1}, "-32602"},
		{"page", map[string]any{"spool": "nope"}, "-32001"},
		{"exec", map[string]any{}, "-32602"},
	} {
		text, res := s.call(t, tt.tool, tt.args)
		if !res.IsError || !strings.HasPrefix(text, "error "+tt.code+": ") {
			t.Errorf("%s %v: got %q (isError %v), want error %s", tt.tool, tt.args, text, res.IsError, tt.code)
		}
		if res.StructuredContent != nil {
			t.Errorf("%s: an error with structuredContent %v, which its outputSchema does not describe", tt.tool, res.StructuredContent)
		}
	}
	// The session goes on after errors.
	if text, res := s.call(t, "exec", map[string]any{"command": "true"}); res.IsError || text != "exit status 0" {
		t.Errorf("after errors: got %q", text)
	}
}

func TestImage(t *testing.T) {
	t.Parallel()
	s, _ := start(t)
	png, err := os.ReadFile("../testdata/read/pixel.png")
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, "pixel.png", string(png))
	text, res := s.call(t, "read", map[string]any{"path": path})
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("got %d contents, isError %v: %q", len(res.Content), res.IsError, text)
	}
	img, ok := res.Content[0].(*sdk.ImageContent)
	if !ok || img.MIMEType != "image/png" || string(img.Data) != string(png) {
		t.Errorf("image content: %#v", res.Content[0])
	}
	if !strings.HasPrefix(text, "[Image file (image/png") {
		t.Errorf("notice: %q", text)
	}
}

func TestSessionPerMCPSession(t *testing.T) {
	t.Parallel()
	dm := newDaemon(t)
	srv := structuredServer(dm.connect, t)
	a, b := open(t, srv), open(t, srv)
	a.call(t, "exec", map[string]any{"command": "true"})
	b.call(t, "exec", map[string]any{"command": "true"})
	_, res := a.call(t, "stats", nil)
	var st struct {
		Sessions int
		Sandbox  *struct{ OS string } // the stats tool always asks for it
	}
	structured(t, res, &st)
	if st.Sessions != 2 {
		t.Errorf("sessions: %d, want 2", st.Sessions)
	}
	if st.Sandbox == nil || st.Sandbox.OS != runtime.GOOS {
		t.Errorf("sandbox: %+v, want this system's", st.Sandbox)
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	srv := NewServer("test", func(context.Context) (*rpc.Client, error) { return nil, boom }, testLogger(t))
	if err := srv.Run(context.Background(), io.NopCloser(strings.NewReader("")), nopWriteCloser{io.Discard}); !errors.Is(err, boom) {
		t.Errorf("connect failing: Run gave %v", err)
	}

	// A daemon connection that ends ends the MCP session.
	srv = NewServer("test", func(ctx context.Context) (*rpc.Client, error) {
		server, client := net.Pipe()
		server.Close()
		return rpc.NewClient(ctx, client, rpc.FramingLines), nil
	}, testLogger(t))
	inR, inW := io.Pipe()
	defer inW.Close()
	if err := srv.Run(context.Background(), inR, nopWriteCloser{io.Discard}); !errors.Is(err, errDaemonGone) {
		t.Errorf("daemon gone: Run gave %v", err)
	}
}

func TestRunCancelled(t *testing.T) {
	t.Parallel()
	dm := newDaemon(t)
	srv := NewServer("test", dm.connect, testLogger(t))
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	defer inW.Close()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, inR, nopWriteCloser{io.Discard}) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run gave %v, want context.Canceled", err)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// TestSearchTools: grep, find and ls through MCP, rendered as grep -n,
// find and ls print, with the JSON result as structuredContent.
func TestSearchTools(t *testing.T) {
	t.Parallel()
	s, _ := startStructured(t)
	dir := filepath.Dir(writeFile(t, "a.go", "package a\n// needle\nfunc A() {}\n\n\nvar needle = 1\n"))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	text, res := s.call(t, "grep", map[string]any{"pattern": "needle", "path": dir, "context": 1})
	want := "a.go-1-package a\na.go:2:// needle\na.go-3-func A() {}\n--\na.go-5-\na.go:6:var needle = 1"
	if text != want || res.IsError {
		t.Errorf("grep: got %q (isError %v), want %q", text, res.IsError, want)
	}
	var g struct{ TotalMatches int }
	structured(t, res, &g)
	if g.TotalMatches != 2 {
		t.Errorf("grep structuredContent: %+v", g)
	}
	text, _ = s.call(t, "grep", map[string]any{"pattern": "needle", "path": dir, "limit": 1})
	if want := "a.go:2:// needle\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"; text != want {
		t.Errorf("grep limit: got %q, want %q", text, want)
	}
	if text, res = s.call(t, "grep", map[string]any{"pattern": "(", "path": dir}); !res.IsError || !strings.Contains(text, "pattern") {
		t.Errorf("bad pattern: %q (isError %v)", text, res.IsError)
	}
	if text, _ = s.call(t, "find", map[string]any{"path": dir}); text != "a.go\nsub/" {
		t.Errorf("find: %q", text)
	}
	if text, _ = s.call(t, "ls", map[string]any{"path": filepath.Join(dir, "sub")}); text != "[Empty directory]" {
		t.Errorf("ls: %q", text)
	}
}

// connectInit is connect, then initialize with params, as toold mcp's
// connect does with its command line's roots and limits.
func (dm *daemon) connectInit(params map[string]any) func(context.Context) (*rpc.Client, error) {
	return func(ctx context.Context) (*rpc.Client, error) {
		c, _ := dm.connect(ctx)
		if err := c.Call(ctx, "initialize", params, nil); err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	}
}

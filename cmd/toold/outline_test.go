package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/outline"
	"github.com/toold/toold/protocol"
)

// TestOutline reads outlines in every mode: Go's net/http server.go by
// go/ast (each entry checked against the text), a Python and a TypeScript
// file by ctags when it is installed, a log by time buckets within 8 KB,
// and a spool by page.
func TestOutline(t *testing.T) {
	parallel(t) // before its files: they are made beside the other cases
	server := filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go")
	src, err := os.ReadFile(server)
	if err != nil {
		t.Skip("no GOROOT source:", err)
	}
	lines := strings.Split(string(src), "\n")
	dir := t.TempDir()
	logPath := filepath.Join(dir, "app.log")
	// Its buckets are by time, five hours whatever the lines: 5,000 in the
	// quick run, 20,000 with TOOLD_LONG=1.
	os.WriteFile(logPath, genLog(testenv.Size(5000, 20000)), 0o644)
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var w protocol.Window
		p.mustCall("read", map[string]any{"path": server, "outline": true, "maxBytes": protocol.MaxWindowBytes}, &w)
		if w.Outline == nil || w.Outline.Format != protocol.OutlineGo || w.Content != "" {
			t.Fatalf("server.go: %+v", w.Outline)
		}
		want := map[string]string{
			"(*conn).serve":   "func (c *conn) serve(ctx context.Context) {",
			"(*Server).Serve": "func (s *Server) Serve(l net.Listener) error {",
			"ListenAndServe":  "func ListenAndServe(addr string, handler Handler) error {",
		}
		for _, e := range w.Outline.Entries {
			if decl, ok := want[e.Name]; ok {
				delete(want, e.Name)
				if lines[e.Line-1] != decl || lines[e.EndLine-1] != "}" {
					t.Errorf("%s at %d-%d: %q ... %q", e.Name, e.Line, e.EndLine, lines[e.Line-1], lines[e.EndLine-1])
				}
			}
		}
		if len(want) > 0 {
			t.Errorf("not in the outline: %v", want)
		}

		for _, f := range []struct{ file, name string }{{"sample.py", "Store.get"}, {"sample.ts", "Walker.walk"}} {
			path, _ := filepath.Abs(filepath.Join("..", "..", "outline", "testdata", f.file))
			var w protocol.Window
			p.mustCall("read", map[string]any{"path": path, "outline": true}, &w)
			if outline.LookCtags(nil) == "" {
				if w.Outline.Format != protocol.OutlineIndent {
					t.Errorf("%s without ctags: %s", f.file, w.Outline.Format)
				}
				continue
			}
			b, _ := json.Marshal(w.Outline)
			if w.Outline.Format != protocol.OutlineCtags || !strings.Contains(string(b), `"name":"`+f.name+`"`) {
				t.Errorf("%s: %s", f.file, b)
			}
		}

		p.mustCall("read", map[string]any{"path": logPath, "outline": true, "maxBytes": 8192}, &w)
		b, _ := json.Marshal(w.Outline)
		if w.Outline.Format != protocol.OutlineLog || len(b) > 8192 || w.Outline.Truncated ||
			!strings.Contains(*w.Notice, "most in 2024-05-01 03:") {
			t.Errorf("log: %d bytes, notice %s\n%s", len(b), *w.Notice, b)
		}

		// Go that does not parse: entries within the file, a read that works.
		// Files each mode writes are its own: the modes run in parallel,
		// and a write truncates the file another mode may be reading.
		mine := t.TempDir()
		bad := filepath.Join(mine, "bad.go")
		os.WriteFile(bad, []byte("package x\nfunc broken( {\n"), 0o644)
		p.mustCall("read", map[string]any{"path": bad, "outline": true}, &w)
		if len(w.Outline.Entries) != 1 || w.Outline.Entries[0].EndLine != 2 || !strings.Contains(*w.Notice, "read offset=2 limit=1 ") {
			t.Errorf("bad.go: %+v %s", w.Outline, *w.Notice)
		}

		// A minified JSON: entries left on its one line are not paged by
		// line (no next that gives them again); the notice reads it by bytes.
		minJSON := filepath.Join(mine, "min.json")
		var mb strings.Builder
		for i := 0; i < 3000; i++ {
			fmt.Fprintf(&mb, `,"key%04d":{"a":%d,"bb":"value %d"}`, i, i, i)
		}
		os.WriteFile(minJSON, []byte("{"+mb.String()[1:]+"}"), 0o644)
		w = protocol.Window{}
		p.mustCall("read", map[string]any{"path": minJSON, "outline": true, "maxBytes": 1500}, &w)
		if w.Next != nil || len(w.Outline.Entries) == 0 || !strings.Contains(*w.Notice, "read the line by bytes with readBytes startByte=0 ") {
			t.Errorf("min.json: next %v, %d entries, notice %s", w.Next, len(w.Outline.Entries), *w.Notice)
		}

		var r execResult
		p.mustCall("exec", map[string]any{"command": "for i in $(seq 1 3000); do echo \"2024-05-01 10:$((i/60%60)):$((i%60/10))$((i%10)) INFO step $i\"; done"}, &r)
		if r.Stdout.Spool == nil {
			t.Fatal("no spool")
		}
		p.mustCall("page", map[string]any{"spool": r.Stdout.Spool.ID, "outline": true}, &w)
		if w.Outline == nil || len(w.Outline.Entries) == 0 || !strings.Contains(*w.Notice, "page spool="+r.Stdout.Spool.ID+" offset=") {
			t.Errorf("page outline: %+v %v", w.Outline, *w.Notice)
		}
	})
}

// genLog is n lines of a service's log over several hours, with a burst of
// ERROR lines (and their stack traces) in hour 3.
func genLog(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		s := i * 5 * 3600 / n
		lv := "INFO"
		if s/3600 == 3 && i%10 == 0 || i%997 == 0 {
			lv = "ERROR"
		}
		fmt.Fprintf(&b, "2024-05-01 %02d:%02d:%02d %s handler: request %d took %dms\n", s/3600, s/60%60, s%60, lv, i, i%50)
		if lv == "ERROR" {
			b.WriteString("\tat service.handle(handler.go:42)\n")
		}
	}
	return b.Bytes()
}

// TestIfChanged re-reads in every mode: an unchanged window answers in
// under 300 bytes, three edited lines are named, and 10 lines inserted at
// the top of a 5000-line file are the only ones reported.
func TestIfChanged(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		path := filepath.Join(t.TempDir(), "f.txt")
		lines := make([]string, 5000)
		for i := range lines {
			lines[i] = fmt.Sprintf("line %d\n", i+1)
		}
		write := func() { os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644) }
		write()
		params := map[string]any{"path": path, "ifChanged": true}
		var w protocol.Window
		p.mustCall("read", params, &w)
		var raw json.RawMessage
		p.mustCall("read", params, &raw)
		wire := len(`{"jsonrpc":"2.0","id":123,"result":}`) + len(raw)
		json.Unmarshal(raw, &w)
		if !w.Unchanged || w.Content != "" || wire >= 300 {
			t.Fatalf("re-read: %d bytes: %s", wire, raw)
		}
		lines[9], lines[10], lines[1999] = "x\n", "y\n", "z\n"
		write()
		w = protocol.Window{}
		p.mustCall("read", params, &w)
		if fmt.Sprint(w.Changed) != "[{10 11} {2000 2000}]" {
			t.Errorf("3 edits: changed %v", w.Changed)
		}
		whole := map[string]any{"path": path, "ifChanged": true, "limit": 6000, "maxBytes": protocol.MaxWindowBytes}
		p.mustCall("read", whole, &w)
		top := make([]string, 10)
		for i := range top {
			top[i] = fmt.Sprintf("inserted %d\n", i)
		}
		lines = append(top, lines...)
		write()
		w = protocol.Window{}
		p.mustCall("read", whole, &w)
		if w.EndLine != 5010 || fmt.Sprint(w.Changed) != "[{1 10}]" {
			t.Errorf("10 lines inserted: lines %d-%d changed %v", w.StartLine, w.EndLine, w.Changed)
		}

		// Every window read is remembered, and lines never read are not
		// changed (a file of its own: this session read all of f.txt).
		other := filepath.Join(t.TempDir(), "g.txt")
		os.WriteFile(other, []byte(strings.Join(lines[:100], "")), 0o644)
		for i, st := range []struct {
			offset, limit int
			unchanged     bool
			changed       string
		}{{1, 10, false, "[]"}, {50, 11, false, "[]"}, {1, 10, true, "[]"}, {1, 100, false, "[]"}, {50, 11, true, "[]"}} {
			w = protocol.Window{}
			p.mustCall("read", map[string]any{"path": other, "ifChanged": true, "offset": st.offset, "limit": st.limit}, &w)
			if w.Unchanged != st.unchanged || fmt.Sprint(w.Changed) != st.changed {
				t.Errorf("g.txt read %d (%d+%d): unchanged %v changed %v notice %q", i+1, st.offset, st.limit, w.Unchanged, w.Changed, *w.Notice)
			}
		}
	})
}

// TestOutlineHugeRSS (TOOLD_LONG=1) outlines a 1 GiB log, a 100 MB JSON
// array and a 50 MB Markdown book, each in a fresh daemon built without
// -race (as shipped): the daemon's peak RSS stays under 64 MiB, and the
// log's outline fits in 8 KB and names the hour with the most errors.
func TestOutlineHugeRSS(t *testing.T) {
	if !testenv.Long() {
		t.Skip("TOOLD_LONG=1: generates 1.2 GB of files")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "toold")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	files := map[string]func(i int) string{
		"huge.log": func(i int) string {
			s := i / 132 % 86400 // about 11.4 M lines over one day
			lv := "INFO"
			if s/3600 == 13 && i%17 == 0 || i%1009 == 0 {
				lv = "ERROR"
			}
			return fmt.Sprintf("2024-05-01T%02d:%02d:%02d.000Z %s [worker-%d] request %d handled in %dms path=/api/items/%d\n", s/3600, s/60%60, s%60, lv, i%8, i, i%300, i%9999)
		},
		"array.json": func(i int) string {
			return fmt.Sprintf("  {\n    \"id\": %d,\n    \"name\": \"item %d\",\n    \"owner\": {\"name\": \"u%d\"}\n  },\n", i, i, i%100)
		},
		"book.md": func(i int) string {
			return fmt.Sprintf("## Chapter %d\n\nSome text of the chapter, long enough to make a paragraph of a book.\n\n```sh\n# not a heading\n```\n\n", i)
		},
	}
	sizes := map[string]int64{"huge.log": 1 << 30, "array.json": 100 << 20, "book.md": 50 << 20}
	for name, gen := range files {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		if name == "array.json" {
			w.WriteString("[\n")
		}
		var n int64
		for i := 0; n < sizes[name]; i++ {
			k, _ := w.WriteString(gen(i))
			n += int64(k)
		}
		if name == "array.json" {
			w.WriteString("  {}\n]\n")
		}
		w.Flush()
		f.Close()

		cmd := exec.Command(bin)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := newPeer(t, in, out, false)
		params := map[string]any{"path": path, "outline": true}
		if name == "huge.log" {
			params["maxBytes"] = 8192
		}
		var win protocol.Window
		p.mustCall("read", params, &win)
		hwm := rssKiB(cmd.Process.Pid, "VmHWM")
		in.Close()
		cmd.Wait()
		b, _ := json.Marshal(win.Outline)
		t.Logf("%s: %d entries of %d, %d bytes, peak RSS %.1f MiB; %s", name, len(win.Outline.Entries), win.Outline.TotalEntries, len(b), float64(hwm)/1024, *win.Notice)
		if hwm > 64<<10 || len(win.Outline.Entries) == 0 {
			t.Errorf("%s: peak RSS %d KiB", name, hwm)
		}
		if name == "huge.log" && (len(b) > 8192 || !strings.Contains(*win.Notice, "most in 2024-05-01 13:")) {
			t.Errorf("log outline: %d bytes; %s", len(b), *win.Notice)
		}
		os.Remove(path)
	}
}

// TestOutlineWithoutCtags: with no ctags on PATH, the daemon outlines a
// Python and a TypeScript file by indent and says how to install ctags.
// The built binary and the forwarded daemon only: PATH is a process's, and
// the in-process daemon shares the test's (methods' TestOutlineWithoutCtags
// hides ctags there through outline.LookCtags).
func TestOutlineWithoutCtags(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	for _, m := range modes[1:] {
		for _, headers := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/headers=%v", m.name, headers), func(t *testing.T) {
				t.Parallel()
				// The daemon's PATH is what counts, and the quick run has
				// one daemon without ctags on it (over stdio, lines): the
				// transports are the other tests', a daemon's start here
				// and two forwarded (each 2 starts of the -race binary)
				// saved. TOOLD_LONG=1 runs all four.
				if m.name != "process" || headers {
					testenv.SkipUnlessLong(t, "the fallback in another transport")
				}
				p := m.start(t, headers, "PATH="+empty)
				for _, f := range []string{"sample.py", "sample.ts"} {
					path, _ := filepath.Abs(filepath.Join("..", "..", "outline", "testdata", f))
					var w protocol.Window
					p.mustCall("read", map[string]any{"path": path, "outline": true}, &w)
					if w.Outline == nil || w.Outline.Format != protocol.OutlineIndent || len(w.Outline.Entries) < 5 ||
						!strings.Contains(*w.Notice, "apt-get install universal-ctags") {
						t.Errorf("%s: %+v %v", f, w.Outline, *w.Notice)
					}
				}
			})
		}
	}
}

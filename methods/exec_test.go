package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/process"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/spool"
)

// newExecService is a Service with a runner and spools, and a session of it.
func newExecService(t testing.TB, openFile func(string, int, os.FileMode) (*os.File, error)) (*Service, *Session) {
	files, err := fileindex.New(fileindex.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spools, err := spool.NewManager(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	spools.OpenFile = openFile
	dir, err := spools.Open("s1")
	if err != nil {
		t.Fatal(err)
	}
	runner := exec.NewRunner(nil)
	procs := process.NewTable(runner, protocol.MaxProcesses)
	t.Cleanup(func() {
		procs.Close()
		runner.Close()
		spools.Close()
		files.Close()
	})
	env := map[string]string{"PATH": os.Getenv("PATH")}
	return &Service{Files: files, Runner: runner, Spools: spools},
		&Session{ID: "s1", Settings: &Settings{Cwd: t.TempDir(), Env: env, Limits: protocol.DefaultLimits}, Spool: dir, Procs: procs}
}

func call[T any](t testing.TB, m Method, s *Session, params any) T {
	t.Helper()
	b, _ := json.Marshal(params)
	res, err := m(context.Background(), s, b)
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	// Round-trip through JSON, as a client sees it.
	out, _ := json.Marshal(res)
	var v T
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// checkRoundTrip runs cat of out (valid UTF-8, no NUL) through exec and checks that head, the
// omitted lines read with page, and tail give the output back, and that the
// totals are those of wc -l -c.
func checkRoundTrip(t testing.TB, svc *Service, s *Session, out []byte, maxLines, maxBytes int) {
	t.Helper()
	path := filepath.Join(s.Cwd, "out")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"argv": []string{"cat", path}, "maxLines": maxLines,
		"maxBytes": maxBytes, "maxLineChars": 0, "clean": false})
	st := r.Stdout
	lines := int64(bytes.Count(out, []byte("\n")))
	if len(out) > 0 && out[len(out)-1] != '\n' {
		lines++
	}
	if st.TotalBytes != int64(len(out)) || st.TotalLines != lines {
		t.Fatalf("totals %d lines %d bytes, wc says %d %d", st.TotalLines, st.TotalBytes, lines, len(out))
	}
	if st.Binary {
		return
	}
	got := st.Head
	if st.Omitted != nil {
		if st.Spool == nil {
			t.Fatal("omitted lines but no spool")
		}
		for off := st.Omitted.FromLine; off <= st.Omitted.ToLine; {
			w := call[protocol.Window](t, svc.Page, s, map[string]any{"spool": st.Spool.ID, "offset": off,
				"limit": st.Omitted.ToLine - off + 1, "maxBytes": protocol.MaxWindowBytes, "maxLineChars": 0, "clean": false})
			got += w.Content
			if w.PartialLine {
				for pos := w.EndByte; ; {
					b := call[protocol.Window](t, svc.Page, s, map[string]any{"spool": st.Spool.ID, "startByte": pos, "clean": false})
					if b.StartLine != w.StartLine {
						break
					}
					got += b.Content
					if b.Next == nil {
						break
					}
					pos = *b.Next.StartByte
				}
			}
			off = w.EndLine + 1
		}
	} else if st.Spool != nil {
		t.Errorf("output shown whole wrote a spool")
	}
	got += st.Tail
	if got != string(out) {
		t.Fatalf("head+page+tail gave %d bytes %q\nwant %d bytes %q", len(got), trim(got), len(out), trim(string(out)))
	}
}

func trim(s string) string {
	if len(s) > 300 {
		return s[:150] + "…" + s[len(s)-150:]
	}
	return s
}

func TestExecPageRoundTrip(t *testing.T) {
	t.Parallel() // a service of its own; runs beside the waits
	svc, s := newExecService(t, nil)
	var b strings.Builder
	// 1,000 lines in the quick run (each count of é and of x below, well
	// past the cases' maxLines and maxBytes), 3,000 with TOOLD_LONG=1.
	for i := range testenv.Size(1000, 3000) {
		b.WriteString(strings.Repeat("é", i%13) + strings.Repeat("x", i%101) + "\n")
	}
	tests := []struct {
		name     string
		out      string
		maxLines int
		maxBytes int
	}{
		{"empty", "", 10, 100},
		{"fits", "a\nb\n", 10, 100},
		{"no trailing newline", "a\nb\nc", 2, 100},
		{"many lines", b.String(), 100, 51200},
		{"by bytes", b.String(), 2000, 1000},
		{"long lines", strings.Repeat(strings.Repeat("z", 5000)+"\n", 40), 10, 2000},
		{"crlf", strings.Repeat("line\r\n", 500), 10, 100},
		// 300 KB in the quick run, 600 KB with TOOLD_LONG=1: longer than
		// a window (MaxWindowBytes) either way, so paged in byte slices.
		{"one giant line", strings.Repeat("日本", testenv.Size(50000, 100000)), 10, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkRoundTrip(t, svc, s, []byte(tt.out), tt.maxLines, tt.maxBytes) })
	}
}

func FuzzExecPage(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), 1, 3)
	f.Add([]byte("日本語\r\nxx\n\nlast"), 2, 5)
	f.Add(bytes.Repeat([]byte("0123456789\n"), 300), 7, 100)
	svc, s := newExecService(f, nil)
	f.Fuzz(func(t *testing.T, out []byte, maxLines, maxBytes int) {
		if bytes.IndexByte(out, 0) >= 0 || !utf8.Valid(out) {
			return
		}
		checkRoundTrip(t, svc, s, out, 1+abs(maxLines)%50, 1+abs(maxBytes)%2000)
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

// TestExecSpoolENOSPC runs a command whose spool cannot be written (the
// disk is full): the preview still comes, with a notice that says so.
func TestExecSpoolENOSPC(t *testing.T) {
	full := func(string, int, os.FileMode) (*os.File, error) { return os.OpenFile("/dev/full", os.O_WRONLY, 0) }
	svc, s := newExecService(t, full)
	r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "seq 1 100000"})
	if r.ExitCode == nil || *r.ExitCode != 0 || !strings.HasPrefix(r.Stdout.Head, "1\n2\n") || !strings.HasSuffix(r.Stdout.Tail, "99999\n100000\n") {
		t.Fatalf("preview lost: %+v", r.Stdout)
	}
	if r.Notice == nil || !strings.Contains(*r.Notice, "could not be kept") || !strings.Contains(*r.Notice, "no space left") {
		t.Fatalf("notice %v", r.Notice)
	}
}

func TestExecNotices(t *testing.T) {
	svc, s := newExecService(t, nil)
	tests := []struct {
		params map[string]any
		want   []string
	}{
		{map[string]any{"command": "echo hi"}, nil},
		{map[string]any{"command": "seq 1 10000"}, []string{"stdout: 10000 lines", "omitted", "page spool="}},
		{map[string]any{"command": "sleep 5", "timeoutMs": 100}, []string{"Timed out after 100ms"}},
		{map[string]any{"command": "head -c 3000 /dev/urandom; printf '\\0'"}, []string{"stdout is binary"}},
		{map[string]any{"command": "printf '%3000s\\n' x"}, []string{"clipped", "page spool="}},
	}
	for _, tt := range tests {
		r := call[protocol.ExecResult](t, svc.Exec, s, tt.params)
		if tt.want == nil {
			if r.Notice != nil {
				t.Errorf("%v: notice %q, want none", tt.params, *r.Notice)
			}
			continue
		}
		if r.Notice == nil {
			t.Errorf("%v: no notice", tt.params)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(*r.Notice, w) {
				t.Errorf("%v: notice %q lacks %q", tt.params, *r.Notice, w)
			}
		}
	}
}

// TestStreamWire checks the mapping of exec's plain stream to the wire:
// highlights are [] and highlightsOmitted 0, never null or absent.
func TestStreamWire(t *testing.T) {
	b, err := json.Marshal(toStream(&exec.Stream{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"highlights":[]`, `"highlightsOmitted":0`, `"omitted":null`, `"spool":null`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
}

// TestPageByteModeIgnores: page with startByte takes readBytes' params; the
// params of line mode it was also given are named, not silently dropped.
func TestPageByteModeIgnores(t *testing.T) {
	svc, s := newExecService(t, nil)
	r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "seq 1 5000", "maxLines": 4})
	if r.Stdout.Spool == nil {
		t.Fatal("no spool")
	}
	tests := []struct {
		params map[string]any
		want   string // the notice's start; "" for none of this kind
	}{
		{map[string]any{"startByte": 10, "outline": true}, "[Ignored in byte mode (startByte given): outline; "},
		{map[string]any{"startByte": 10, "offset": 3, "limit": 2, "ifChanged": true}, "[Ignored in byte mode (startByte given): offset, limit, ifChanged; "},
		{map[string]any{"startByte": 10, "maxBytes": 100}, ""},
		{map[string]any{"offset": 3, "limit": 2}, ""},
	}
	for _, tt := range tests {
		tt.params["spool"] = r.Stdout.Spool.ID
		w := call[protocol.Window](t, svc.Page, s, tt.params)
		got := deref(w.Notice)
		if tt.want != "" && !strings.HasPrefix(got, tt.want) || tt.want == "" && strings.Contains(got, "Ignored in byte mode") {
			t.Errorf("%v: notice %q, want %q", tt.params, got, tt.want)
		}
		if _, ok := tt.params["startByte"]; ok && w.StartByte > 10 {
			t.Errorf("%v: a byte window from %d", tt.params, w.StartByte)
		}
	}
}

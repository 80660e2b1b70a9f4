package main

import (
	"bytes"
	"encoding/json"
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

// window mirrors the protocol's window, field names as on the wire.
type window struct {
	Path        string  `json:"path"`
	Content     string  `json:"content"`
	StartLine   int64   `json:"startLine"`
	EndLine     int64   `json:"endLine"`
	TotalLines  int64   `json:"totalLines"`
	StartByte   int64   `json:"startByte"`
	EndByte     int64   `json:"endByte"`
	TotalBytes  int64   `json:"totalBytes"`
	Truncated   bool    `json:"truncated"`
	TruncatedBy *string `json:"truncatedBy"`
	Next        *struct {
		Offset    *int64 `json:"offset"`
		StartByte *int64 `json:"startByte"`
	} `json:"next"`
	ClippedLines int     `json:"clippedLines"`
	PartialLine  bool    `json:"partialLine"`
	Binary       bool    `json:"binary"`
	Notice       *string `json:"notice"`
	Image        *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"image"`
}

type stream struct {
	Head         string `json:"head"`
	Tail         string `json:"tail"`
	TotalBytes   int64  `json:"totalBytes"`
	TotalLines   int64  `json:"totalLines"`
	ShownLines   int    `json:"shownLines"`
	ShownBytes   int    `json:"shownBytes"`
	ClippedLines int    `json:"clippedLines"`
	Omitted      *struct {
		FromLine int64 `json:"fromLine"`
		ToLine   int64 `json:"toLine"`
		Bytes    int64 `json:"bytes"`
	} `json:"omitted"`
	Truncated bool `json:"truncated"`
	Spool     *struct {
		ID     string `json:"id"`
		Path   string `json:"path"`
		Bytes  int64  `json:"bytes"`
		Capped bool   `json:"capped"`
	} `json:"spool"`
	Binary     bool `json:"binary"`
	Highlights []struct {
		FromLine int64  `json:"fromLine"`
		ToLine   int64  `json:"toLine"`
		Text     string `json:"text"`
		Reason   string `json:"reason"`
	} `json:"highlights"`
	HighlightsOmitted int `json:"highlightsOmitted"`
	Kinds             []struct {
		Text      string `json:"text"`
		Count     int64  `json:"count"`
		FirstLine int64  `json:"firstLine"`
		LastLine  int64  `json:"lastLine"`
	} `json:"kinds"`
}

type execResult struct {
	ExitCode  *int    `json:"exitCode"`
	Signal    *string `json:"signal"`
	TimedOut  bool    `json:"timedOut"`
	Cancelled bool    `json:"cancelled"`
	Stdout    stream  `json:"stdout"`
	Stderr    stream  `json:"stderr"`
	Notice    *string `json:"notice"`
}

type initResult struct {
	ServerInfo struct{ Name, Version string } `json:"serverInfo"`
	Session    string                         `json:"session"`
	SpoolDir   string                         `json:"spoolDir"`
	Methods    []string                       `json:"methods"`
	Limits     struct {
		Read struct {
			Limit    int `json:"limit"`
			MaxBytes int `json:"maxBytes"`
		} `json:"read"`
	} `json:"limits"`
}

func testdata(name string) string {
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", name))
	if err != nil {
		panic(err)
	}
	return p
}

func TestInitialize(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		dir := t.TempDir()
		var res initResult
		p.mustCall("initialize", map[string]any{"clientInfo": map[string]string{"name": "test"}, "cwd": dir,
			"roots": []string{dir}, "limits": map[string]any{"read": map[string]any{"limit": 10, "maxBytes": 1 << 30}}}, &res)
		if res.ServerInfo.Name != "toold" || res.Session == "" {
			t.Errorf("initialize: %+v", res)
		}
		if fi, err := os.Stat(res.SpoolDir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("spoolDir %s: %v %v", res.SpoolDir, fi, err)
		}
		if res.Limits.Read.Limit != 10 || res.Limits.Read.MaxBytes != 262144 {
			t.Errorf("limits not applied or not clamped: %+v", res.Limits)
		}
		for _, m := range []string{"read", "readBytes", "page", "exec", "stats", "session/close"} {
			if !strings.Contains(strings.Join(res.Methods, " "), m) {
				t.Errorf("methods %v lack %s", res.Methods, m)
			}
		}
		// A relative path resolves against the session cwd; the limit applies.
		os.WriteFile(filepath.Join(dir, "f.txt"), bytes.Repeat([]byte("x\n"), 50), 0o644)
		var w window
		p.mustCall("read", map[string]any{"path": "f.txt"}, &w)
		if w.EndLine != 10 || w.Path != filepath.Join(dir, "f.txt") {
			t.Errorf("read with session limit: lines %d-%d path %s", w.StartLine, w.EndLine, w.Path)
		}
	})
}

func TestReadFiles(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		tests := []struct {
			file       string
			lines      int64
			binary     bool
			image      bool
			contentLen int
		}{
			{"read/crlf.txt", 3, false, false, 46},
			{"read/utf8.txt", 4, false, false, 60},
			{"read/nonl.txt", 1, false, false, 19},
			{"read/empty.txt", 0, false, false, 0},
			{"read/blob.bin", 0, true, false, 0},
			{"read/pixel.png", 0, false, true, 0},
		}
		for _, tt := range tests {
			var w window
			path := testdata(tt.file)
			p.mustCall("read", map[string]any{"path": path}, &w)
			data, _ := os.ReadFile(path)
			if w.TotalLines != tt.lines || w.TotalBytes != int64(len(data)) || w.Binary != tt.binary || (w.Image != nil) != tt.image {
				t.Errorf("%s: totalLines %d totalBytes %d binary %v image %v", tt.file, w.TotalLines, w.TotalBytes, w.Binary, w.Image != nil)
			}
			if !tt.binary && !tt.image && w.Content != string(data) {
				t.Errorf("%s: content %q, want %q", tt.file, w.Content, data)
			}
			if w.Truncated || w.Next != nil {
				t.Errorf("%s: truncated %v next %v for a whole file", tt.file, w.Truncated, w.Next)
			}
			if (tt.binary || tt.image) && (w.Notice == nil || w.Content != "") {
				t.Errorf("%s: binary window %+v", tt.file, w)
			}
		}
		var w window
		p.mustCall("read", map[string]any{"path": testdata("read/invalid.txt")}, &w)
		if w.Content != "ok line\n\uFFFD\uFFFD broken bytes\nend\n" {
			t.Errorf("invalid UTF-8: %q", w.Content)
		}
	})
}

func TestReadPaging(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		dir := t.TempDir()
		path := filepath.Join(dir, "lines.txt")
		var b strings.Builder
		for i := 1; i <= 5000; i++ {
			b.WriteString(strings.Repeat("y", i%37) + "\n")
		}
		os.WriteFile(path, []byte(b.String()), 0o644)

		var w window
		p.mustCall("read", map[string]any{"path": path, "limit": 2000, "maxBytes": 262144}, &w)
		if w.StartLine != 1 || w.EndLine != 2000 || w.TotalLines != 5000 || *w.TruncatedBy != "lines" || *w.Next.Offset != 2001 {
			t.Fatalf("first page: %d-%d of %d by %v", w.StartLine, w.EndLine, w.TotalLines, w.TruncatedBy)
		}
		if *w.Notice != "[Showing lines 1-2000 of 5000. Use offset=2001 to continue]" {
			t.Errorf("notice %q", *w.Notice)
		}
		// Page the whole file by bytes-limited windows and put it back together.
		var got strings.Builder
		for off := int64(1); ; {
			var w window
			p.mustCall("read", map[string]any{"path": path, "offset": off, "maxBytes": 1000}, &w)
			if w.StartLine != off || w.EndByte-w.StartByte > 1000 {
				t.Fatalf("window at %d: %d-%d bytes %d-%d", off, w.StartLine, w.EndLine, w.StartByte, w.EndByte)
			}
			got.WriteString(w.Content)
			if w.Next == nil {
				break
			}
			if *w.TruncatedBy != "bytes" {
				t.Fatalf("truncatedBy %q", *w.TruncatedBy)
			}
			off = *w.Next.Offset
		}
		if got.String() != b.String() {
			t.Fatal("paging by read did not give the file back")
		}
		// Past the end.
		p.mustCall("read", map[string]any{"path": path, "offset": 6000}, &w)
		if w.Content != "" || w.Truncated || w.Next != nil || w.EndLine != 5999 || !strings.Contains(*w.Notice, "5000 lines") {
			t.Errorf("past the end: %+v", w)
		}
	})
}

func TestReadLongLines(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		dir := t.TempDir()
		path := filepath.Join(dir, "long.txt")
		long := strings.Repeat("é", 3000) // 6000 bytes, 3000 characters
		os.WriteFile(path, []byte("short\n"+long+"\nend\n"), 0o644)

		var w window
		p.mustCall("read", map[string]any{"path": path}, &w)
		if w.ClippedLines != 1 || w.Content != "short\n"+strings.Repeat("é", 2000)+"\nend\n" {
			t.Errorf("clipping: clipped %d, content length %d", w.ClippedLines, len(w.Content))
		}
		if w.Notice == nil || !strings.Contains(*w.Notice, "readBytes startByte=6 maxBytes=6001") {
			t.Errorf("clip notice %v", w.Notice)
		}
		p.mustCall("read", map[string]any{"path": path, "maxLineChars": 0}, &w)
		if w.ClippedLines != 0 || w.Notice != nil || !strings.Contains(w.Content, long) {
			t.Errorf("maxLineChars 0 still clips: %d", w.ClippedLines)
		}
		// A first line that alone passes maxBytes: partial, on a character boundary.
		p.mustCall("read", map[string]any{"path": path, "offset": 2, "maxBytes": 1001}, &w)
		if !w.PartialLine || w.Content != strings.Repeat("é", 500) || w.EndByte-w.StartByte != 1000 || *w.Next.Offset != 3 {
			t.Errorf("partial: %v %d bytes next %v", w.PartialLine, w.EndByte-w.StartByte, w.Next)
		}
		if w.Notice == nil || !strings.Contains(*w.Notice, "readBytes startByte=1006") {
			t.Errorf("partial notice %v", w.Notice)
		}
	})
}

// TestReadBytesWalk follows next.startByte from 0 and checks the windows put
// end to end give the file back, for files of every awkward shape.
func TestReadBytesWalk(t *testing.T) {
	parallel(t) // before the files: they are written beside the other cases
	dir := t.TempDir()
	// The quick run walks each file at each maxBytes in at most 300 round
	// trips, and its files are smaller where the size is not what a walk
	// checks: a utf8 file whose walk 7 bytes at a time still cuts every kind
	// of character; a giant file of 320 KiB, still one line longer than the
	// largest window readBytes gives (256 KiB), walked in 5 windows of 64 KiB
	// or 80 of 4 KiB (its 5 MiB, 80 windows of 64 KiB, were most of the
	// case's 2.6 CPU-seconds); a long middle line of 30,000 '€', still two
	// windows of 64 KiB and cut mid-character at their edges (100,000 with
	// TOOLD_LONG=1, which walks every file at 4096 bytes a step too). The
	// modes other than the one that runs the whole table (wholeTable) take
	// the walks of at most 40 round trips: every file at some maxBytes.
	maxSteps := testenv.Size(300, 2000)
	files := map[string][]byte{
		"crlf":     []byte("a\r\nbb\r\nccc\r\n"),
		"utf8":     bytes.Repeat([]byte("日本語 😀 é\n"), testenv.Size(40, 200)),
		"giant":    bytes.Repeat([]byte("0123456789abcdé"), testenv.Size(320<<10, 5<<20)/16),
		"nonl":     []byte("x\ny\nno newline at the end"),
		"empty":    nil,
		"oneline":  []byte("\n"),
		"longmid":  append(append([]byte("a\n"), bytes.Repeat([]byte("€"), testenv.Size(30000, 100000))...), []byte("\nz\n")...),
		"shortend": append(bytes.Repeat([]byte("q"), 70000), '\n', 'r'),
	}
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		maxSteps := maxSteps
		if !wholeTable(t) {
			maxSteps = 40
		}
		for name, data := range files {
			for _, maxBytes := range []int{1, 7, 4096, 65536} {
				if len(data)/maxBytes > maxSteps {
					continue // too many round trips; methods' own walk test covers it
				}
				var got bytes.Buffer
				var pos int64
				for steps := 0; ; steps++ {
					var w window
					p.mustCall("readBytes", map[string]any{"path": filepath.Join(dir, name), "startByte": pos, "maxBytes": maxBytes}, &w)
					if w.StartByte != pos && !(pos == 0 && w.StartByte == 0) {
						t.Fatalf("%s/%d: window starts at %d, asked %d", name, maxBytes, w.StartByte, pos)
					}
					got.WriteString(w.Content)
					if w.Next == nil {
						if w.EndByte != int64(len(data)) || w.Truncated {
							t.Fatalf("%s/%d: ended at %d of %d", name, maxBytes, w.EndByte, len(data))
						}
						break
					}
					if *w.Next.StartByte <= pos {
						t.Fatalf("%s/%d: no progress at %d", name, maxBytes, pos)
					}
					pos = *w.Next.StartByte
					if steps > len(data)+1 {
						t.Fatalf("%s/%d: walk does not end", name, maxBytes)
					}
				}
				if !bytes.Equal(got.Bytes(), data) {
					t.Fatalf("%s/%d: walk gave %d bytes, not the file's %d", name, maxBytes, got.Len(), len(data))
				}
			}
		}
	})
}

func TestStaleness(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		dir := t.TempDir()
		path := filepath.Join(dir, "f.log")
		read := func() window {
			var w window
			p.mustCall("read", map[string]any{"path": path}, &w)
			return w
		}
		os.WriteFile(path, []byte("one\ntwo\n"), 0o644)
		if w := read(); w.TotalLines != 2 {
			t.Fatalf("lines %d", w.TotalLines)
		}
		// Appended.
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("three\n")
		f.Close()
		if w := read(); w.TotalLines != 3 || w.Content != "one\ntwo\nthree\n" {
			t.Fatalf("after append: %d %q", w.TotalLines, w.Content)
		}
		// Rewritten in place, same size, mtime forced back.
		st, _ := os.Stat(path)
		os.WriteFile(path, []byte("ONE\nTWO\nTHREE\n"), 0o644)
		os.Chtimes(path, st.ModTime(), st.ModTime())
		if w := read(); w.Content != "ONE\nTWO\nTHREE\n" {
			t.Fatalf("after rewrite in place: %q", w.Content)
		}
		// Replaced by rename, as editors save.
		tmp := filepath.Join(dir, ".f.log.swp")
		os.WriteFile(tmp, []byte("a\nb\nc\nd\ne\n"), 0o644)
		os.Rename(tmp, path)
		if w := read(); w.TotalLines != 5 || w.Content != "a\nb\nc\nd\ne\n" {
			t.Fatalf("after rename: %d %q", w.TotalLines, w.Content)
		}
		// Truncated.
		os.WriteFile(path, []byte("z"), 0o644)
		if w := read(); w.TotalLines != 1 || w.Content != "z" {
			t.Fatalf("after truncation: %d %q", w.TotalLines, w.Content)
		}
	})
}

// TestBadInput sends bad input of every kind and checks the error, then that
// the same connection still answers a good request.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	os.WriteFile(good, []byte("fine\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("/etc/hostname", filepath.Join(dir, "escape"))
	tests := []struct {
		name   string
		method string
		params any
		code   int64
		words  []string // the message names these
		data   string   // error.data holds this
	}{
		{"missing file", "read", map[string]any{"path": filepath.Join(dir, "nope")}, -32001, []string{"nope"}, `"path"`},
		{"directory", "read", map[string]any{"path": filepath.Join(dir, "sub")}, -32003, []string{"directory"}, `"path"`},
		{"outside roots", "read", map[string]any{"path": "/etc/passwd"}, -32002, []string{"roots"}, `"path"`},
		{"symlink out of roots", "read", map[string]any{"path": filepath.Join(dir, "escape")}, -32002, nil, `"path"`},
		{"dotdot out of roots", "readBytes", map[string]any{"path": dir + "/../../etc/passwd"}, -32002, nil, `"path"`},
		{"no path", "read", map[string]any{}, -32602, []string{"path"}, ""},
		{"path of wrong type", "read", map[string]any{"path": 5}, -32602, []string{"path"}, ""},
		{"negative offset", "read", map[string]any{"path": good, "offset": -1}, -32602, []string{"offset"}, ""},
		{"offset a string", "read", map[string]any{"path": good, "offset": "x"}, -32602, []string{"offset"}, ""},
		{"fractional limit", "read", map[string]any{"path": good, "limit": 1.5}, -32602, []string{"limit"}, ""},
		{"negative maxBytes", "readBytes", map[string]any{"path": good, "maxBytes": -5}, -32602, []string{"maxBytes"}, ""},
		{"negative startByte", "readBytes", map[string]any{"path": good, "startByte": -5}, -32602, []string{"startByte"}, ""},
		{"negative limit of 200 digits", "read", map[string]any{"path": good, "limit": json.RawMessage("-" + strings.Repeat("9", 200))},
			-32602, []string{"limit", "below -9223372036854775807"}, ""},
		{"limit too long to decode", "read", map[string]any{"path": good, "limit": json.RawMessage(strings.Repeat("9", 1000))},
			-32602, []string{"limit", "number literal of 1000 characters"}, `"limit"`},
		{"params an array", "read", []any{1, 2}, -32602, nil, ""},
		{"params a string", "read", "x", -32602, nil, ""},
		{"unknown method", "frobnicate", nil, -32601, []string{"frobnicate"}, ""},
		{"unknown spool", "page", map[string]any{"spool": "deadbeef"}, -32001, []string{"spool"}, `"spool"`},
		{"page without spool", "page", map[string]any{}, -32602, []string{"spool"}, ""},
		{"exec without command", "exec", map[string]any{}, -32602, []string{"command"}, ""},
		{"exec with both", "exec", map[string]any{"command": "true", "argv": []string{"true"}}, -32602, []string{"command"}, ""},
		{"exec bad preview", "exec", map[string]any{"command": "true", "preview": "middle"}, -32602, []string{"preview"}, ""},
		{"exec negative timeout", "exec", map[string]any{"command": "true", "timeoutMs": -1}, -32602, []string{"timeoutMs"}, ""},
		{"exec missing binary", "exec", map[string]any{"argv": []string{"/no/such/binary"}}, -32005, []string{"/no/such/binary"}, ""},
		{"exec missing cwd", "exec", map[string]any{"command": "true", "cwd": "/no/such/dir"}, -32005, nil, ""},
		{"initialize with a bad root", "initialize", map[string]any{"roots": []string{"/no/such/root"}}, -32602, []string{"roots[0]"}, ""},
		{"initialize with a bad limit", "initialize", map[string]any{"limits": map[string]any{"read": map[string]any{"limit": -1}}}, -32602, []string{"limits.read.limit"}, ""},
	}
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		p.mustCall("initialize", map[string]any{"cwd": dir, "roots": []string{dir}}, nil)
		check := func(name string) {
			t.Helper()
			var w window
			p.mustCall("read", map[string]any{"path": good}, &w)
			if w.Content != "fine\n" {
				t.Fatalf("after %s: the good read gave %q", name, w.Content)
			}
		}
		for _, tt := range tests {
			err := p.call(tt.method, tt.params, nil)
			if err == nil || err.Code != tt.code {
				t.Errorf("%s: got %v, want code %d", tt.name, err, tt.code)
				continue
			}
			for _, w := range tt.words {
				if !strings.Contains(err.Message, w) {
					t.Errorf("%s: message %q does not name %q", tt.name, err.Message, w)
				}
			}
			if tt.data != "" && !strings.Contains(string(err.Data), tt.data) {
				t.Errorf("%s: data %s lacks %s", tt.name, err.Data, tt.data)
			}
			check(tt.name)
		}
		// Huge sizes are clamped, not refused.
		var w window
		p.mustCall("read", map[string]any{"path": good, "limit": 1e15, "maxBytes": json.Number("99999999999999999999999")}, &w)
		// Raw garbage on the wire.
		for _, raw := range []string{`{"jsonrpc":"2.0","id":1,"method":`, `not json at all`, `{"id":1,`} {
			p.send([]byte(raw))
			if m := p.orphan(); m.Error == nil || m.Error.Code != -32700 {
				t.Errorf("%q: got %+v, want -32700", raw, m.Error)
			}
			check(raw)
		}
		for _, raw := range []string{`[1,2]`, `5`, `{"jsonrpc":"2.0","id":null}`} {
			p.send([]byte(raw))
			if m := p.orphan(); m.Error == nil || m.Error.Code != -32600 {
				t.Errorf("%q: got %+v, want -32600", raw, m.Error)
			}
			check(raw)
		}
		// A 20 MB message. The quick run refuses one in
		// TestContractMessageSizeBoundary (and rpc's TestOversizeMessage).
		if !testenv.Long() {
			return
		}
		p.sendPadded(`{"jsonrpc":"2.0","id":"big","method":"read","params":{"path":"`, 20<<20, 'a', `"}}`)
		if m := p.orphan(); m.Error == nil || m.Error.Code != -32600 {
			t.Errorf("20 MB message: got %+v, want -32600", m.Error)
		}
		check("a 20 MB message")
	})
}

// TestHeadersInAnyOrder sends header-framed messages whose first header is
// not Content-Length, from the very first message on (which is what framing
// detection sees): every mode answers each in header framing, with no error.
func TestHeadersInAnyOrder(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			// The quick run reads the headers in the daemon's parser (in
			// process) and the forwarder's; over stdio the daemon's parser
			// reads them again, with TOOLD_LONG=1.
			if m.name == "process" {
				testenv.SkipUnlessLong(t, "the daemon's parser, as in process")
			}
			p := m.start(t, true)
			p.before = "X-Trace: 1\r\n"
			p.after = "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
			var res initResult
			p.mustCall("initialize", nil, &res)
			var w window
			p.mustCall("read", map[string]any{"path": testdata("read/utf8.txt"), "limit": 1}, &w)
			if w.EndLine != 1 {
				t.Errorf("read: lines %d-%d", w.StartLine, w.EndLine)
			}
			p.before, p.after = "content-type: x\r\n", ""
			p.mustCall("stats", nil, nil)
			select {
			case o := <-p.orphans:
				t.Errorf("a reply with a null id: %+v", o.Error)
			default:
			}
		})
	}
}

func TestExecAndPage(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var r execResult
		p.mustCall("exec", map[string]any{"command": "seq 1 5000"}, &r)
		s := r.Stdout
		if r.ExitCode == nil || *r.ExitCode != 0 || !s.Truncated || s.Omitted == nil || s.Spool == nil || s.TotalLines != 5000 {
			t.Fatalf("exec seq: %+v", r)
		}
		// head + omitted lines read by page + tail == the output.
		var mid strings.Builder
		for off := s.Omitted.FromLine; off <= s.Omitted.ToLine; {
			var w window
			p.mustCall("page", map[string]any{"spool": s.Spool.ID, "offset": off, "limit": min(2000, s.Omitted.ToLine-off+1)}, &w)
			mid.WriteString(w.Content)
			off = w.EndLine + 1
		}
		var want strings.Builder
		for i := 1; i <= 5000; i++ {
			want.WriteString(strconv.Itoa(i) + "\n")
		}
		if got := s.Head + mid.String() + s.Tail; got != want.String() {
			t.Errorf("head+page+tail differs from the output (%d vs %d bytes)", len(got), want.Len())
		}
		if r.Notice == nil || !strings.Contains(*r.Notice, s.Spool.ID) {
			t.Errorf("notice %v", r.Notice)
		}
		// The spool is readable by read too.
		var w window
		p.mustCall("read", map[string]any{"path": s.Spool.Path, "limit": 1}, &w)
		if w.Content != "1\n" {
			t.Errorf("read of the spool: %q", w.Content)
		}
		// Small output: no spool, all in head.
		p.mustCall("exec", map[string]any{"command": "echo hi; echo err >&2; exit 3"}, &r)
		if *r.ExitCode != 3 || r.Stdout.Head != "hi\n" || r.Stderr.Head != "err\n" || r.Stdout.Spool != nil || r.Stdout.Truncated {
			t.Errorf("small exec: %+v", r)
		}
		// session/close deletes the spool; the id is then unknown.
		p.mustCall("session/close", nil, nil)
		if _, err := os.Stat(s.Spool.Path); !os.IsNotExist(err) {
			t.Errorf("spool %s still there after session/close: %v", s.Spool.Path, err)
		}
		if err := p.call("page", map[string]any{"spool": s.Spool.ID}, nil); err == nil || err.Code != -32001 {
			t.Errorf("page after close: %v", err)
		}
	})
}

// TestConcurrency checks that a long exec does not delay a read, and that
// $/cancelRequest ends it with its result.
func TestConcurrency(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		mark := filepath.Join(t.TempDir(), "started")
		id, slow := p.start("exec", map[string]any{"command": "echo started; touch " + mark + "; sleep 30"})
		var w window
		p.mustCall("read", map[string]any{"path": testdata("read/utf8.txt")}, &w)
		select {
		case <-slow:
			t.Fatal("the exec answered before it was cancelled")
		default:
		}
		testenv.WaitFor(t, 20*time.Second, "the command to start", func() bool { _, err := os.Stat(mark); return err == nil })
		p.notify("$/cancelRequest", map[string]any{"id": jsonNumber(id)})
		m := p.await(slow)
		var r execResult
		if m.Error != nil {
			if m.Error.Code != -32800 {
				t.Fatalf("cancelled exec: %v", m.Error)
			}
		} else if json.Unmarshal(m.Result, &r); !r.Cancelled || r.Stdout.Head != "started\n" {
			t.Fatalf("cancelled exec: %+v", r)
		}
	})
}

func jsonNumber(id string) json.Number { return json.Number(id) }

// spooledCommand prints past exec's preview (2,000 lines), so that its
// output is spooled, for the cases that check what becomes of a spool. The
// 100,000 lines it was took a -race daemon 40 ms more a run to take in,
// for nothing these cases check.
const spooledCommand = "seq 1 3000"

func TestShutdownExit(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			p := m.start(t, false)
			var res initResult
			p.mustCall("initialize", nil, &res)
			var r execResult
			p.mustCall("exec", map[string]any{"command": spooledCommand}, &r)
			if r.Stdout.Spool == nil {
				t.Fatal("no spool")
			}
			p.mustCall("shutdown", nil, nil)
			if err := p.call("read", map[string]any{"path": testdata("read/utf8.txt")}, nil); err == nil || err.Code != -32004 {
				t.Errorf("read after shutdown: %v", err)
			}
			if _, err := os.Stat(res.SpoolDir); !os.IsNotExist(err) {
				t.Errorf("spool dir after shutdown: %v", err)
			}
			p.notify("exit", nil)
			if code, _ := p.wait(); code != 0 {
				t.Errorf("exit after shutdown: code %d, want 0", code)
			}
		})
	}
	// A stdio toold, and the forwarder that stands in for one, exit 1 on
	// exit without shutdown; in-process, ServeConn returns that code.
	for _, m := range modes {
		t.Run(m.name+"/exit without shutdown", func(t *testing.T) {
			p := m.start(t, false)
			p.mustCall("stats", nil, nil)
			p.notify("exit", nil)
			if code, _ := p.wait(); code != 1 {
				t.Errorf("exit without shutdown: code %d, want 1", code)
			}
		})
	}
}

// TestSignalCleansUp sends SIGTERM to a daemon with a running command and a
// spool, and checks both are gone.
func TestSignalCleansUp(t *testing.T) {
	t.Parallel()
	// The quick run has SIGINT: SIGTERM's end of processes and spools is
	// TestSignalEndsProcesses'.
	for _, sig := range testenv.Size([]syscall.Signal{syscall.SIGINT}, []syscall.Signal{syscall.SIGTERM, syscall.SIGINT}) {
		t.Run(sig.String(), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "spool")
			cmd := exec.Command(binPath, "--spool-root", root)
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			p := newPeer(t, in, out, false)
			var res initResult
			p.mustCall("initialize", nil, &res)
			var r execResult
			p.mustCall("exec", map[string]any{"command": spooledCommand}, &r)
			// The command writes its background child's pid to a file: the
			// signal goes once the child runs, and the pid is known even if
			// the reply never comes.
			pidFile := filepath.Join(t.TempDir(), "pid")
			p.start("exec", map[string]any{"command": "sleep 60 & echo $! > " + pidFile + ".new && mv " + pidFile + ".new " + pidFile + "; wait"})
			var pid int
			testenv.WaitFor(t, 15*time.Second, "the command's background child", func() bool {
				b, _ := os.ReadFile(pidFile)
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return pid > 0
			})
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("daemon did not exit on signal")
			}
			// Gone, or a zombie until init reaps it.
			testenv.WaitFor(t, 15*time.Second, "the background sleep to end", func() bool { return !testenv.Alive(pid) })
			if _, err := os.Stat(res.SpoolDir); !os.IsNotExist(err) {
				t.Errorf("spool dir %s after %v: %v", res.SpoolDir, sig, err)
			}
		})
	}
}

// TestSweepAfterSIGKILL kills a daemon that had a spool, and checks the
// next daemon on the same spool root removes what it left, but not the
// directory of a daemon that is alive.
func TestSweepAfterSIGKILL(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "spool")
	start := func() (*exec.Cmd, *peer) {
		cmd := exec.Command(binPath, "--spool-root", root)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd, newPeer(t, in, out, false)
	}
	// The live daemon is one in this process in the quick run (its pid
	// lives as a daemon's does), a start of the -race binary saved.
	var pa *peer
	if testenv.Long() {
		_, pa = start()
	} else {
		pa = inProcessOn(t, root, false)
	}
	var ra initResult
	pa.mustCall("initialize", nil, &ra)

	killed, pk := start()
	var rk initResult
	pk.mustCall("initialize", nil, &rk)
	var r execResult
	pk.mustCall("exec", map[string]any{"command": spooledCommand}, &r)
	if r.Stdout.Spool == nil {
		t.Fatal("no spool")
	}
	killed.Process.Signal(syscall.SIGKILL)
	killed.Wait()
	if _, err := os.Stat(r.Stdout.Spool.Path); err != nil {
		t.Fatalf("the killed daemon's spool should still be there: %v", err)
	}

	_, pn := start()
	pn.mustCall("stats", nil, nil) // the sweep ran at start
	if _, err := os.Stat(rk.SpoolDir); !os.IsNotExist(err) {
		t.Errorf("the dead daemon's spool dir %s was not swept: %v", rk.SpoolDir, err)
	}
	if _, err := os.Stat(ra.SpoolDir); err != nil {
		t.Errorf("a live daemon's spool dir was swept: %v", err)
	}
}

// TestSharedDaemon starts two forwarders with --remote=auto: they share one
// daemon, each with its own session working in its own cwd, and the socket
// is the user's alone.
func TestSharedDaemon(t *testing.T) {
	t.Parallel()
	runtime := t.TempDir()
	root := filepath.Join(runtime, "toold-"+strconv.Itoa(os.Geteuid()))
	var peers []*peer
	var dirs []string
	for i := range 2 {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "who.txt"), []byte("client "+strconv.Itoa(i)+"\n"), 0o644)
		cmd := exec.Command(binPath, "--remote=auto", "--idle-timeout", "1s")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TOOLD_RUNTIME_DIR="+runtime)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := newPeer(t, in, out, i == 1)
		var once sync.Once
		p.close = func() { once.Do(func() { in.Close(); cmd.Wait() }) }
		t.Cleanup(p.close)
		peers = append(peers, p)
		dirs = append(dirs, dir)
	}
	for i, p := range peers {
		var w window
		p.mustCall("read", map[string]any{"path": "who.txt"}, &w)
		if want := "client " + strconv.Itoa(i) + "\n"; w.Content != want || w.Path != filepath.Join(dirs[i], "who.txt") {
			t.Errorf("client %d read %q at %s, want its own cwd's file", i, w.Content, w.Path)
		}
	}
	var st struct {
		Sessions int `json:"sessions"`
	}
	peers[0].mustCall("stats", nil, &st)
	if st.Sessions != 2 {
		t.Errorf("sessions %d: the forwarders do not share one daemon", st.Sessions)
	}
	socks, _ := filepath.Glob(filepath.Join(root, "toold-*.sock"))
	if len(socks) != 1 {
		t.Fatalf("sockets %v, want one", socks)
	}
	sock := socks[0]
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket %s: %v %v", sock, fi, err)
	}
	if fi, err := os.Stat(root); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket dir: %v %v", fi, err)
	}
	// Both leave; the daemon exits a second later and takes its socket along.
	for _, p := range peers {
		p.close()
	}
	var err error
	var locks []string
	if !testenv.Until(15*time.Second, func() bool {
		_, err = os.Stat(sock)
		locks, _ = filepath.Glob(filepath.Join(root, "*.lock"))
		return os.IsNotExist(err) && len(locks) == 0
	}) {
		t.Fatalf("the idle daemon did not exit (socket %v, locks %v)", err, locks)
	}
}

// TestMCP drives toold mcp as an MCP client would: initialize, list the
// tools, call read.
func TestMCP(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binPath, "mcp", "--spool-root", filepath.Join(t.TempDir(), "spool"))
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	p := newPeer(t, in, out, false)
	p.mustCall("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "test", "version": "1"}}, nil)
	p.notify("notifications/initialized", nil)
	var tools struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	p.mustCall("tools/list", nil, &tools)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"read", "readBytes", "page", "exec"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	var res struct {
		Content []struct{ Type, Text string } `json:"content"`
		IsError bool                          `json:"isError"`
	}
	p.mustCall("tools/call", map[string]any{"name": "read", "arguments": map[string]any{"path": testdata("read/utf8.txt")}}, &res)
	if res.IsError || len(res.Content) == 0 || !strings.HasPrefix(res.Content[0].Text, "     1\théllo wörld\n     2\t日本語のテキスト\n") {
		t.Errorf("read through MCP: %+v", res)
	}
}

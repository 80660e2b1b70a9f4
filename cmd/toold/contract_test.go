package main

// Contract tests: the points of shared/PROTOCOL.md that the other tests of
// this package do not pin down, run against every transport where it is
// cheap to. A test that starts with t.Skip("discrepancy: ...") asserts what
// the contract says where toold does otherwise today: remove the skip once
// the code is fixed.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toold/toold/internal/testenv"
)

// ctExec is exec's result with the fields execResult leaves out.
type ctExec struct {
	execResult
	DurationMs *int64 `json:"durationMs"`
}

// ctFiles writes files (name -> content) under a new temp dir and returns it.
func ctFiles(t testing.TB, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// ctEmptyFiles makes a new temp dir of empty files named names and returns
// it. They are hard links of one file: a new inode costs a millisecond of
// system time on ext4, and the cases that list a wide directory read its
// names only.
func ctEmptyFiles(t testing.TB, names []string) string {
	t.Helper()
	dir := t.TempDir()
	first := filepath.Join(dir, names[0])
	if err := os.WriteFile(first, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range names[1:] {
		if err := os.Link(first, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// ctLines counts lines as the contract does: a last line without '\n'
// counts, a trailing '\n' adds none, an empty file has 0.
func ctLines(data []byte) int64 {
	n := int64(bytes.Count(data, []byte{'\n'}))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// ctWindowInvariants checks what every text window of file must satisfy.
func ctWindowInvariants(t *testing.T, name string, w window, file []byte) {
	t.Helper()
	if w.Notice != nil && strings.ContainsAny(*w.Notice, "\r\n") {
		t.Errorf("%s: notice is not one line: %q", name, *w.Notice)
	}
	if w.TotalBytes != int64(len(file)) {
		t.Errorf("%s: totalBytes %d, file has %d", name, w.TotalBytes, len(file))
	}
	if w.Binary {
		return
	}
	if w.TotalLines != ctLines(file) {
		t.Errorf("%s: totalLines %d, want %d", name, w.TotalLines, ctLines(file))
	}
	if w.StartByte < 0 || w.EndByte < w.StartByte || w.EndByte > w.TotalBytes {
		t.Errorf("%s: bytes %d-%d of %d", name, w.StartByte, w.EndByte, w.TotalBytes)
	}
	if w.EndLine < w.StartLine-1 {
		t.Errorf("%s: lines %d-%d", name, w.StartLine, w.EndLine)
	}
	if w.Content == "" && !w.PartialLine && w.EndLine != w.StartLine-1 {
		t.Errorf("%s: empty content but lines %d-%d (want endLine = startLine-1)", name, w.StartLine, w.EndLine)
	}
	if !w.Truncated && w.Next != nil {
		t.Errorf("%s: next %+v although not truncated", name, *w.Next)
	}
	if w.Truncated && !w.PartialLine && w.Next == nil {
		t.Errorf("%s: truncated without next", name)
	}
	if !w.Truncated && w.TruncatedBy != nil {
		t.Errorf("%s: truncatedBy %q although not truncated", name, *w.TruncatedBy)
	}
	if w.TruncatedBy != nil && *w.TruncatedBy != "lines" && *w.TruncatedBy != "bytes" {
		t.Errorf("%s: truncatedBy %q", name, *w.TruncatedBy)
	}
	if w.ClippedLines == 0 && utf8.Valid(file) && w.EndByte <= int64(len(file)) && w.Content != string(file[w.StartByte:w.EndByte]) {
		t.Errorf("%s: content %q is not the file's bytes %d-%d", name, w.Content, w.StartByte, w.EndByte)
	}
}

func ctStr(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestContractReadWindows checks the window fields of read and readBytes on
// files of awkward shapes and with extreme limits.
func TestContractReadWindows(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 100)
	files := map[string][]byte{
		"empty":     nil,
		"nn":        []byte("a\nb\n\n"),
		"nonl":      []byte("one\ntwo"),
		"crlf":      []byte("a\r\nbb\r\nccc\r\n"),
		"ten":       []byte("line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\n"),
		"longfirst": append(append([]byte{}, long...), "\nshort\n"...),
		"accents":   []byte(strings.Repeat("é", 10) + "\nnext\n"),
		"big":       bytes.Repeat([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"), 6000), // 384000 bytes
		"onlynl":    []byte("\n"),
	}
	dir := ctFiles(t, files)
	type tcase struct {
		name   string
		method string
		params map[string]any
		check  func(t *testing.T, w window)
	}
	p := func(name string, kv ...any) map[string]any {
		m := map[string]any{"path": filepath.Join(dir, name)}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	wantLines := func(start, end int64) func(t *testing.T, w window) {
		return func(t *testing.T, w window) {
			t.Helper()
			if w.StartLine != start || w.EndLine != end {
				t.Errorf("lines %d-%d, want %d-%d", w.StartLine, w.EndLine, start, end)
			}
		}
	}
	atEnd := func(t *testing.T, w window) {
		t.Helper()
		if w.Truncated || w.Next != nil || w.TruncatedBy != nil {
			t.Errorf("at the end: truncated %v next %v truncatedBy %s", w.Truncated, w.Next, ctStr(w.TruncatedBy))
		}
	}
	tests := []tcase{
		{"empty file", "read", p("empty"), func(t *testing.T, w window) {
			atEnd(t, w)
			if w.Content != "" || w.TotalLines != 0 || w.StartByte != 0 || w.EndByte != 0 || w.EndLine != w.StartLine-1 {
				t.Errorf("empty file: %+v", w)
			}
		}},
		{"empty file by bytes", "readBytes", p("empty"), func(t *testing.T, w window) {
			atEnd(t, w)
			if w.Content != "" || w.TotalLines != 0 {
				t.Errorf("empty file: %+v", w)
			}
		}},
		{"ends in blank line", "read", p("nn"), func(t *testing.T, w window) {
			atEnd(t, w)
			wantLines(1, 3)(t, w)
			if w.Content != "a\nb\n\n" || w.TotalLines != 3 || w.Notice != nil {
				t.Errorf("content %q totalLines %d notice %s", w.Content, w.TotalLines, ctStr(w.Notice))
			}
		}},
		{"only a newline", "read", p("onlynl"), func(t *testing.T, w window) {
			atEnd(t, w)
			if w.Content != "\n" || w.TotalLines != 1 {
				t.Errorf("content %q totalLines %d", w.Content, w.TotalLines)
			}
		}},
		{"no trailing newline", "read", p("nonl"), func(t *testing.T, w window) {
			atEnd(t, w)
			if w.Content != "one\ntwo" || w.TotalLines != 2 || w.EndByte != 7 {
				t.Errorf("content %q totalLines %d", w.Content, w.TotalLines)
			}
		}},
		{"last line alone", "read", p("nonl", "offset", 2), func(t *testing.T, w window) {
			atEnd(t, w)
			wantLines(2, 2)(t, w)
			if w.Content != "two" || w.StartByte != 4 {
				t.Errorf("content %q startByte %d", w.Content, w.StartByte)
			}
		}},
		{"crlf kept", "read", p("crlf", "limit", 2), func(t *testing.T, w window) {
			wantLines(1, 2)(t, w)
			if w.Content != "a\r\nbb\r\n" || w.EndByte != 7 || *w.Next.Offset != 3 || ctStr(w.TruncatedBy) != "lines" {
				t.Errorf("crlf: %q next %v", w.Content, w.Next)
			}
		}},
		{"offset 0 is 1", "read", p("ten", "offset", 0, "limit", 1), func(t *testing.T, w window) {
			wantLines(1, 1)(t, w)
		}},
		{"limit 1", "read", p("ten", "limit", 1), func(t *testing.T, w window) {
			wantLines(1, 1)(t, w)
			if w.Content != "line 1\n" || !w.Truncated || ctStr(w.TruncatedBy) != "lines" || w.Next == nil || w.Next.Offset == nil || *w.Next.Offset != 2 {
				t.Errorf("limit 1: %+v", w)
			}
			if w.Next != nil && w.Next.StartByte != nil {
				t.Errorf("line mode next has startByte: %+v", *w.Next)
			}
			if w.Notice == nil || !strings.Contains(*w.Notice, "offset=2") {
				t.Errorf("notice %s does not name offset=2", ctStr(w.Notice))
			}
		}},
		{"limit reaches the end exactly", "read", p("ten", "limit", 10), func(t *testing.T, w window) {
			atEnd(t, w)
			wantLines(1, 10)(t, w)
			if w.Notice != nil {
				t.Errorf("notice %q for a whole file", *w.Notice)
			}
		}},
		{"limit from the middle", "read", p("ten", "offset", 4, "limit", 3), func(t *testing.T, w window) {
			wantLines(4, 6)(t, w)
			if w.Content != "line 4\nline 5\nline 6\n" || w.StartByte != 21 || *w.Next.Offset != 7 {
				t.Errorf("middle: %q next %v", w.Content, w.Next)
			}
			if w.Notice == nil || !strings.Contains(*w.Notice, "offset=7") {
				t.Errorf("notice %s", ctStr(w.Notice))
			}
		}},
		{"maxBytes ends the window on a line", "read", p("ten", "maxBytes", 20), func(t *testing.T, w window) {
			wantLines(1, 2)(t, w)
			if w.EndByte != 14 || ctStr(w.TruncatedBy) != "bytes" || *w.Next.Offset != 3 || w.PartialLine {
				t.Errorf("maxBytes 20: %+v", w)
			}
			if w.Notice == nil || !strings.Contains(*w.Notice, "offset=3") {
				t.Errorf("notice %s", ctStr(w.Notice))
			}
		}},
		{"maxBytes 1", "read", p("ten", "maxBytes", 1), func(t *testing.T, w window) {
			wantLines(1, 1)(t, w)
			if w.Content != "l" || !w.PartialLine || !w.Truncated || w.EndByte != 1 || w.Next == nil || *w.Next.Offset != 2 {
				t.Errorf("maxBytes 1: %+v", w)
			}
			if w.Notice == nil || !strings.Contains(*w.Notice, "readBytes") {
				t.Errorf("partial notice %s does not name readBytes", ctStr(w.Notice))
			}
		}},
		{"a first line longer than maxBytes", "read", p("longfirst", "maxBytes", 10), func(t *testing.T, w window) {
			wantLines(1, 1)(t, w)
			if w.Content != strings.Repeat("x", 10) || !w.PartialLine || ctStr(w.TruncatedBy) != "bytes" || *w.Next.Offset != 2 {
				t.Errorf("long first line: %+v", w)
			}
			if w.Notice == nil || !strings.Contains(*w.Notice, "readBytes") || !strings.Contains(*w.Notice, "startByte=10") {
				t.Errorf("partial notice %s", ctStr(w.Notice))
			}
		}},
		{"partial line cut on a character", "read", p("accents", "maxBytes", 5), func(t *testing.T, w window) {
			if w.Content != "éé" || !w.PartialLine || w.EndByte != 4 || !utf8.ValidString(w.Content) {
				t.Errorf("partial multibyte: %q %d", w.Content, w.EndByte)
			}
		}},
		{"clipped multibyte line", "read", p("accents", "maxLineChars", 4), func(t *testing.T, w window) {
			atEnd(t, w)
			if w.Content != "éééé\nnext\n" || w.ClippedLines != 1 || w.EndByte != int64(len(files["accents"])) {
				t.Errorf("clip: %q clipped %d", w.Content, w.ClippedLines)
			}
			if w.Notice == nil || !strings.Contains(*w.Notice, "readBytes") || !strings.Contains(*w.Notice, "startByte=0") {
				t.Errorf("clip notice %s does not say how to read the line whole", ctStr(w.Notice))
			}
		}},
		{"maxLineChars 0 turns clipping off", "read", p("longfirst", "maxLineChars", 0, "limit", 1), func(t *testing.T, w window) {
			if w.Content != string(long)+"\n" || w.ClippedLines != 0 {
				t.Errorf("no clip: %q", w.Content)
			}
		}},
		{"maxBytes above the cap is clamped", "read", p("big", "maxBytes", 1<<30, "limit", 100000), func(t *testing.T, w window) {
			if w.EndByte-w.StartByte > 262144 || w.EndByte-w.StartByte < 262144-64 || ctStr(w.TruncatedBy) != "bytes" || w.Next == nil {
				t.Errorf("clamped read: bytes %d-%d by %s", w.StartByte, w.EndByte, ctStr(w.TruncatedBy))
			}
		}},
		{"offset past the end", "read", p("ten", "offset", 12), func(t *testing.T, w window) {
			atEnd(t, w)
			if w.Content != "" || w.StartLine != 12 || w.EndLine != 11 || w.Notice == nil || !strings.Contains(*w.Notice, "10") {
				t.Errorf("past the end: %+v notice %s", w, ctStr(w.Notice))
			}
		}},
		{"offset one past the last line", "read", p("nonl", "offset", 3), func(t *testing.T, w window) {
			atEnd(t, w)
			if w.Content != "" || w.EndLine != 2 {
				t.Errorf("past the end: %+v", w)
			}
		}},
		{"readBytes defaults", "readBytes", p("ten"), func(t *testing.T, w window) {
			atEnd(t, w)
			wantLines(1, 10)(t, w)
		}},
		{"readBytes from mid-line starts at the line", "readBytes", p("ten", "startByte", 10, "maxBytes", 10), func(t *testing.T, w window) {
			wantLines(2, 2)(t, w)
			if w.StartByte != 7 || w.EndByte != 14 || w.Content != "line 2\n" || w.PartialLine || w.Next == nil || w.Next.StartByte == nil || *w.Next.StartByte != 14 {
				t.Errorf("mid-line: %+v", w)
			}
			if w.Next != nil && w.Next.Offset != nil {
				t.Errorf("byte mode next has offset: %+v", *w.Next)
			}
			if w.Notice == nil || !strings.Contains(*w.Notice, "startByte=14") {
				t.Errorf("notice %s", ctStr(w.Notice))
			}
		}},
		{"readBytes whole lines as many as fit", "readBytes", p("crlf", "maxBytes", 8), func(t *testing.T, w window) {
			if w.Content != "a\r\nbb\r\n" || w.EndByte != 7 || ctStr(w.TruncatedBy) != "bytes" {
				t.Errorf("fit: %+v", w)
			}
		}},
		{"readBytes slice of a long line", "readBytes", p("longfirst", "startByte", 5, "maxBytes", 10), func(t *testing.T, w window) {
			if w.Content != strings.Repeat("x", 10) || !w.PartialLine || w.StartByte != 5 || w.EndByte != 15 || *w.Next.StartByte != 15 {
				t.Errorf("slice: %+v", w)
			}
		}},
		{"readBytes slice moved to a character boundary", "readBytes", p("accents", "startByte", 1, "maxBytes", 3), func(t *testing.T, w window) {
			if w.StartByte != 2 || w.Content != "é" || !w.PartialLine {
				t.Errorf("boundary: %+v", w)
			}
		}},
		{"readBytes maxBytes above the cap", "readBytes", p("big", "maxBytes", 1<<40), func(t *testing.T, w window) {
			if w.EndByte-w.StartByte > 262144 || w.Next == nil {
				t.Errorf("clamped readBytes: %d-%d", w.StartByte, w.EndByte)
			}
		}},
		{"readBytes at the end", "readBytes", p("ten", "startByte", 71), func(t *testing.T, w window) {
			atEnd(t, w)
			if w.Content != "" || w.StartByte != 71 || w.EndByte != 71 {
				t.Errorf("at the end: %+v", w)
			}
		}},
		{"readBytes past the end", "readBytes", p("ten", "startByte", 5000), func(t *testing.T, w window) {
			atEnd(t, w)
			if w.Content != "" || w.EndByte != 71 {
				t.Errorf("past the end: %+v", w)
			}
		}},
		{"readBytes of a last line without newline", "readBytes", p("nonl", "startByte", 5), func(t *testing.T, w window) {
			atEnd(t, w)
			if w.Content != "two" || w.StartByte != 4 {
				t.Errorf("last line: %+v", w)
			}
		}},
	}
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		pr := start(t)
		for _, tt := range tests {
			var w window
			if err := pr.call(tt.method, tt.params, &w); err != nil {
				t.Errorf("%s: %v", tt.name, err)
				continue
			}
			name := strings.TrimPrefix(filepath.Base(tt.params["path"].(string)), dir)
			ctWindowInvariants(t, tt.name, w, files[name])
			t.Run(strings.ReplaceAll(tt.name, " ", "_"), func(t *testing.T) { tt.check(t, w) })
		}
		// Paging by read with a tiny maxBytes gives the file back, partial
		// lines and all, when partial lines are finished with readBytes.
		var got strings.Builder
		for off, steps := int64(1), 0; steps < 1000; steps++ {
			var w window
			pr.mustCall("read", p("longfirst", "offset", off, "maxBytes", 7), &w)
			got.WriteString(w.Content)
			if w.PartialLine {
				// Finish the line: slices until one ends it.
				for pos := w.EndByte; ; {
					var b window
					pr.mustCall("readBytes", p("longfirst", "startByte", pos, "maxBytes", 7), &b)
					if !b.PartialLine {
						break
					}
					got.WriteString(b.Content)
					if b.Next == nil || strings.HasSuffix(b.Content, "\n") {
						break
					}
					pos = *b.Next.StartByte
				}
			}
			if w.Next == nil {
				break
			}
			off = *w.Next.Offset
		}
		if got.String() != string(files["longfirst"]) {
			t.Errorf("read + readBytes walk gave %q", got.String())
		}
	})
}

// TestContractFileKinds checks images, binary files, special files, paths
// and roots.
func TestContractFileKinds(t *testing.T) {
	png, _ := os.ReadFile(testdata("read/pixel.png"))
	gif := []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")
	jpeg := append(append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"), make([]byte, 64)...), 0xff, 0xd9)
	webp := append([]byte("RIFF\x1e\x00\x00\x00WEBPVP8 \x12\x00\x00\x00"), make([]byte, 18)...)
	blob := bytes.Repeat([]byte{0, 1, 2, 3, 0xff, 0xfe, 'a', '\n'}, 512)
	dir := ctFiles(t, map[string][]byte{
		"a.png": png, "a.gif": gif, "a.jpg": jpeg, "a.webp": webp, "big.png": png, "blob.bin": blob,
		"~/tilde.txt": []byte("in a dir named ~\n"),
		"root/in.txt": []byte("inside\n"),
		"out/out.txt": []byte("outside\n"),
	})
	// An image over 5 MiB: the PNG and 5 MiB of zeros, a hole (written, they
	// cost the -race test process 5 MiB and its shadow).
	if err := os.Truncate(filepath.Join(dir, "big.png"), int64(len(png))+5<<20); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "root", "sub"), 0o755)
	if err := os.Symlink(filepath.Join(dir, "root"), filepath.Join(dir, "rootlink")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(dir, "root", "in.txt"), filepath.Join(dir, "out", "to-in.txt"))
	os.Symlink(filepath.Join(dir, "out"), filepath.Join(dir, "root", "to-out"))

	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		// No roots yet: images and binaries.
		for _, im := range []struct {
			name, mime string
			data       []byte
		}{{"a.png", "image/png", png}, {"a.gif", "image/gif", gif}, {"a.jpg", "image/jpeg", jpeg}, {"a.webp", "image/webp", webp}} {
			var w window
			p.mustCall("read", map[string]any{"path": filepath.Join(dir, im.name)}, &w)
			if w.Image == nil || w.Image.MimeType != im.mime {
				t.Errorf("%s: image %+v", im.name, w.Image)
				continue
			}
			if data, err := base64.StdEncoding.DecodeString(w.Image.Data); err != nil || !bytes.Equal(data, im.data) {
				t.Errorf("%s: image data does not decode to the file: %v", im.name, err)
			}
			if w.Content != "" || w.EndLine != w.StartLine-1 || w.Truncated || w.Next != nil || w.TotalBytes != int64(len(im.data)) {
				t.Errorf("%s: an image's window is not empty: %+v", im.name, w)
			}
		}
		var w window
		p.mustCall("read", map[string]any{"path": filepath.Join(dir, "big.png")}, &w)
		if w.Image != nil || w.Content != "" || w.Notice == nil || strings.Contains(*w.Notice, "\n") {
			t.Errorf("an image over 5 MiB: image %v notice %s", w.Image != nil, ctStr(w.Notice))
		}
		w = window{}
		p.mustCall("readBytes", map[string]any{"path": filepath.Join(dir, "a.png")}, &w)
		if w.Image != nil || !w.Binary || w.Content != "" {
			t.Errorf("readBytes of an image: %+v", w)
		}
		for _, m := range []string{"read", "readBytes"} {
			var w window
			p.mustCall(m, map[string]any{"path": filepath.Join(dir, "blob.bin")}, &w)
			if !w.Binary || w.Content != "" || w.Notice == nil || w.Next != nil || w.TotalBytes != int64(len(blob)) {
				t.Errorf("%s of a binary file: %+v", m, w)
			}
		}
		// Special files answer (an error naming the path, or an empty window)
		// without hanging.
		for _, path := range []string{filepath.Join(dir, "fifo"), "/dev/null"} {
			var w window
			if err := p.call("read", map[string]any{"path": path}, &w); err != nil {
				if !strings.Contains(string(err.Data), `"path"`) {
					t.Errorf("%s: error without data.path: %v", path, err)
				}
			} else if w.Content != "" {
				t.Errorf("%s: %+v", path, w)
			}
		}
		// A directory.
		for _, m := range []string{"read", "readBytes"} {
			err := p.call(m, map[string]any{"path": filepath.Join(dir, "root")}, nil)
			if err == nil || err.Code != -32003 || !strings.Contains(string(err.Data), filepath.Join(dir, "root")) {
				t.Errorf("%s of a directory: %v", m, err)
			}
		}
		// A path is absolute or relative to the cwd: "~" is a name like any other.
		p.mustCall("initialize", map[string]any{"cwd": dir}, nil)
		w = window{}
		p.mustCall("read", map[string]any{"path": "~/tilde.txt"}, &w)
		if w.Content != "in a dir named ~\n" || w.Path != filepath.Join(dir, "~", "tilde.txt") {
			t.Errorf("~ path: %q at %s", w.Content, w.Path)
		}
		w = window{}
		p.mustCall("read", map[string]any{"path": "./out/../root/in.txt"}, &w)
		if w.Content != "inside\n" || !filepath.IsAbs(w.Path) {
			t.Errorf("relative path with ..: %q at %s", w.Content, w.Path)
		}

		// Roots given through a symlink: both spellings of a path inside
		// are allowed; symlinks out, and missing files out, are refused.
		p.mustCall("initialize", map[string]any{"cwd": dir, "roots": []string{filepath.Join(dir, "rootlink")}}, nil)
		for _, path := range []string{filepath.Join(dir, "rootlink", "in.txt"), filepath.Join(dir, "root", "in.txt"),
			filepath.Join(dir, "out", "to-in.txt"), "rootlink/in.txt"} {
			var w window
			if err := p.call("read", map[string]any{"path": path}, &w); err != nil || w.Content != "inside\n" {
				t.Errorf("inside the roots, %s: %v %q", path, err, w.Content)
			}
		}
		for _, path := range []string{filepath.Join(dir, "out", "out.txt"), filepath.Join(dir, "root", "to-out", "out.txt"),
			filepath.Join(dir, "out", "missing.txt"), filepath.Join(dir, "rootlink", "..", "out", "out.txt")} {
			for _, m := range []string{"read", "readBytes"} {
				err := p.call(m, map[string]any{"path": path}, nil)
				if err == nil || err.Code != -32002 || !strings.Contains(string(err.Data), `"path"`) {
					t.Errorf("%s outside the roots, %s: %v", m, path, err)
				}
			}
		}
		if err := p.call("read", map[string]any{"path": filepath.Join(dir, "root", "missing.txt")}, nil); err == nil || err.Code != -32001 {
			t.Errorf("missing file inside the roots: %v", err)
		}
		// The session's own spool is readable by read whatever its roots;
		// exec is not bound by them.
		var r execResult
		p.mustCall("exec", map[string]any{"command": "cat " + filepath.Join(dir, "out", "out.txt") + "; seq 1 3000"}, &r)
		if r.Stdout.Spool == nil || !strings.HasPrefix(r.Stdout.Head, "outside\n") {
			t.Fatalf("exec: %+v", r.Stdout)
		}
		for _, m := range []string{"read", "readBytes"} {
			var w window
			if err := p.call(m, map[string]any{"path": r.Stdout.Spool.Path, "limit": 1, "maxBytes": 8}, &w); err != nil || w.Content != "outside\n" {
				t.Errorf("%s of the session's spool with roots: %v %q", m, err, w.Content)
			}
		}
	})
}

// TestContractExec checks exec's params and result fields.
func TestContractExec(t *testing.T) {
	type tcase struct {
		name   string
		params map[string]any
		check  func(t *testing.T, r ctExec)
	}
	lines := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			b.WriteString(strconv.Itoa(i) + "\n")
		}
		return b.String()
	}
	exitCode := func(r ctExec) int {
		if r.ExitCode == nil {
			return -1
		}
		return *r.ExitCode
	}
	noSpool := func(t *testing.T, s stream) {
		t.Helper()
		if s.Spool != nil || s.Truncated || s.Omitted != nil || s.Tail != "" {
			t.Errorf("output shown whole has spool %v truncated %v omitted %v tail %q", s.Spool, s.Truncated, s.Omitted, s.Tail)
		}
	}
	omitted := func(t *testing.T, s stream, from, to, nbytes int64) {
		t.Helper()
		if s.Omitted == nil || s.Omitted.FromLine != from || s.Omitted.ToLine != to || s.Omitted.Bytes != nbytes || !s.Truncated {
			t.Errorf("omitted %+v truncated %v, want %d-%d (%d bytes)", s.Omitted, s.Truncated, from, to, nbytes)
		}
		if s.Spool == nil || s.Spool.ID == "" || s.Spool.Bytes != s.TotalBytes || s.Spool.Capped {
			t.Errorf("spool %+v for a truncated stream of %d bytes", s.Spool, s.TotalBytes)
		}
	}
	tests := []tcase{
		{"exit code and both streams", map[string]any{"command": "echo out; echo err >&2; exit 7"}, func(t *testing.T, r ctExec) {
			if exitCode(r) != 7 || r.Signal != nil || r.TimedOut || r.Cancelled || r.DurationMs == nil || *r.DurationMs < 0 {
				t.Errorf("end: %+v", r)
			}
			if r.Stdout.Head != "out\n" || r.Stderr.Head != "err\n" || r.Stdout.TotalLines != 1 || r.Stdout.TotalBytes != 4 ||
				r.Stdout.ShownLines != 1 || r.Stdout.ShownBytes != 4 {
				t.Errorf("streams: %+v %+v", r.Stdout, r.Stderr)
			}
			noSpool(t, r.Stdout)
			noSpool(t, r.Stderr)
		}},
		{"killed by a signal", map[string]any{"command": "echo before; kill -KILL $$"}, func(t *testing.T, r ctExec) {
			if r.ExitCode != nil || ctStr(r.Signal) != "SIGKILL" || r.TimedOut || r.Cancelled || r.Stdout.Head != "before\n" {
				t.Errorf("signal: exit %v signal %s %+v", r.ExitCode, ctStr(r.Signal), r.Stdout)
			}
		}},
		{"timeout keeps what was captured", map[string]any{"command": "echo before; sleep 20", "timeoutMs": 300}, func(t *testing.T, r ctExec) {
			if !r.TimedOut || r.Cancelled || r.ExitCode != nil || r.Signal == nil || r.Stdout.Head != "before\n" {
				t.Errorf("timeout: %+v", r)
			}
			if r.DurationMs == nil || *r.DurationMs < 250 || *r.DurationMs > 10000 {
				t.Errorf("durationMs %v", r.DurationMs)
			}
			if r.Notice == nil {
				t.Error("no notice for a timeout")
			}
		}},
		{"stdin", map[string]any{"command": "cat", "stdin": "hello\nworld"}, func(t *testing.T, r ctExec) {
			if r.Stdout.Head != "hello\nworld" || r.Stdout.TotalLines != 2 {
				t.Errorf("stdin: %q lines %d", r.Stdout.Head, r.Stdout.TotalLines)
			}
		}},
		{"no stdin reads EOF", map[string]any{"command": "cat; echo rc=$?", "timeoutMs": 20000}, func(t *testing.T, r ctExec) {
			if r.TimedOut || r.Stdout.Head != "rc=0\n" {
				t.Errorf("stdin default: %+v", r)
			}
		}},
		{"env merged over the session's", map[string]any{"command": `printf '%s' "$CT_A$CT_B"; test -n "$PATH"`, "env": map[string]string{"CT_B": "2"}}, func(t *testing.T, r ctExec) {
			if exitCode(r) != 0 || r.Stdout.Head != "12" {
				t.Errorf("env: exit %d out %q", exitCode(r), r.Stdout.Head)
			}
		}},
		{"cwd relative to the session's", map[string]any{"command": "pwd -P", "cwd": "sub"}, func(t *testing.T, r ctExec) {
			if !strings.HasSuffix(r.Stdout.Head, "/sub\n") {
				t.Errorf("cwd: %q", r.Stdout.Head)
			}
		}},
		{"argv has no shell", map[string]any{"argv": []string{"printf", "%s|", "a b", "$HOME", "*"}}, func(t *testing.T, r ctExec) {
			if r.Stdout.Head != "a b|$HOME|*|" {
				t.Errorf("argv: %q", r.Stdout.Head)
			}
		}},
		{"headTail", map[string]any{"command": "seq 1 10", "maxLines": 4}, func(t *testing.T, r ctExec) {
			s := r.Stdout
			if s.Head != "1\n2\n" || s.Tail != "9\n10\n" || s.ShownLines != 4 || s.ShownBytes != 9 || s.TotalLines != 10 || s.TotalBytes != 21 {
				t.Errorf("headTail: %+v", s)
			}
			omitted(t, s, 3, 8, 12)
			if r.Notice == nil || !strings.Contains(*r.Notice, s.Spool.ID) || !strings.Contains(*r.Notice, "offset=3") {
				t.Errorf("notice %s", ctStr(r.Notice))
			}
		}},
		{"head", map[string]any{"command": "seq 1 10", "maxLines": 4, "preview": "head"}, func(t *testing.T, r ctExec) {
			if r.Stdout.Head != "1\n2\n3\n4\n" || r.Stdout.Tail != "" {
				t.Errorf("head: %+v", r.Stdout)
			}
			omitted(t, r.Stdout, 5, 10, 13)
		}},
		{"tail", map[string]any{"command": "seq 1 10", "maxLines": 4, "preview": "tail"}, func(t *testing.T, r ctExec) {
			if r.Stdout.Head != "" || r.Stdout.Tail != "7\n8\n9\n10\n" {
				t.Errorf("tail: %+v", r.Stdout)
			}
			omitted(t, r.Stdout, 1, 6, 12)
		}},
		{"tail of output that fits is all in head", map[string]any{"command": "seq 1 3", "preview": "tail"}, func(t *testing.T, r ctExec) {
			if r.Stdout.Head != "1\n2\n3\n" {
				t.Errorf("tail that fits: %+v", r.Stdout)
			}
			noSpool(t, r.Stdout)
		}},
		{"maxBytes per stream", map[string]any{"command": "seq 1 10; seq 1 10 >&2", "maxBytes": 6}, func(t *testing.T, r ctExec) {
			for _, s := range []stream{r.Stdout, r.Stderr} {
				if s.ShownBytes > 6 || len(s.Head)+len(s.Tail) != s.ShownBytes || s.Head+s.Tail != "1\n2\n10\n" && s.Head+s.Tail != "1\n10\n" {
					t.Errorf("maxBytes 6: %+v", s)
				}
				if s.Spool == nil || !s.Truncated {
					t.Errorf("maxBytes 6: no spool")
				}
			}
		}},
		{"mergeStderr", map[string]any{"command": "echo a; sleep 0.05; echo b >&2", "mergeStderr": true}, func(t *testing.T, r ctExec) {
			if r.Stdout.Head != "a\nb\n" || r.Stderr.TotalBytes != 0 || r.Stderr.Head != "" {
				t.Errorf("merged: %+v %+v", r.Stdout, r.Stderr)
			}
		}},
		{"clean strips ANSI and keeps the last redraw", map[string]any{"command": `printf '\033[31mred\033[0m\n10%%\r50%%\r100%%\ndone\r\n'`}, func(t *testing.T, r ctExec) {
			if r.Stdout.Head != "red\n100%\ndone\r\n" || r.Stdout.TotalLines != 3 {
				t.Errorf("clean: %q", r.Stdout.Head)
			}
		}},
		{"clean off", map[string]any{"command": `printf '\033[31mred\033[0m\n10%%\r100%%\n'`, "clean": false}, func(t *testing.T, r ctExec) {
			if r.Stdout.Head != "\x1b[31mred\x1b[0m\n10%\r100%\n" {
				t.Errorf("raw: %q", r.Stdout.Head)
			}
		}},
		{"binary output", map[string]any{"command": `printf 'a\0b\n'`}, func(t *testing.T, r ctExec) {
			s := r.Stdout
			if !s.Binary || s.Head != "" || s.Tail != "" || s.ShownLines != 0 || s.TotalBytes != 4 || s.Spool == nil || s.Spool.Bytes != 4 {
				t.Errorf("binary: %+v", s)
			}
		}},
		{"maxLineChars clips the preview", map[string]any{"command": "echo short; printf 'y%.0s' $(seq 1 30); echo; echo end", "maxLineChars": 10}, func(t *testing.T, r ctExec) {
			s := r.Stdout
			if s.Head != "short\nyyyyyyyyyy\nend\n" || s.ClippedLines != 1 || s.TotalLines != 3 || s.Spool == nil {
				t.Errorf("clipped: %+v", s)
			}
		}},
		{"invalid UTF-8 in the preview", map[string]any{"command": `printf 'caf\351\n'`}, func(t *testing.T, r ctExec) {
			if r.Stdout.Head != "caf\uFFFD\n" || r.Stdout.Binary {
				t.Errorf("invalid UTF-8: %q", r.Stdout.Head)
			}
		}},
		{"reply when the command exits despite a background child", map[string]any{"command": "sleep 30 & echo done", "timeoutMs": 60000}, func(t *testing.T, r ctExec) {
			if r.Stdout.Head != "done\n" || r.TimedOut || *r.DurationMs > 5000 {
				t.Errorf("background child: %+v", r)
			}
		}},
		{"maxLines above its cap is clamped", map[string]any{"command": "seq 1 5", "maxLines": 1e12, "maxBytes": 1e12, "timeoutMs": 1e15}, func(t *testing.T, r ctExec) {
			if r.Stdout.Head != lines(1, 5) || exitCode(r) != 0 {
				t.Errorf("clamped: %+v", r)
			}
		}},
	}
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "sub"), 0o755)
		var res initResult
		p.mustCall("initialize", map[string]any{"cwd": dir, "env": map[string]string{"CT_A": "1", "CT_B": "1"}}, &res)
		// Output shown whole writes no file, even when only the clean-up
		// makes it fit.
		var whole execResult
		p.mustCall("exec", map[string]any{"command": `echo hi; echo err >&2; printf '\033[31m%s\033[0m\n' $(seq 1 1000)`, "maxBytes": 6000}, &whole)
		if whole.Stdout.Spool != nil || whole.Stdout.Truncated || whole.Stdout.TotalLines != 1001 {
			t.Errorf("output that fits once cleaned: %+v", whole.Stdout)
		}
		if names, err := os.ReadDir(res.SpoolDir); err != nil || len(names) != 0 {
			t.Errorf("spool dir after output shown whole: %v %v", names, err)
		}
		for _, tt := range tests {
			var r ctExec
			if err := p.call("exec", tt.params, &r); err != nil {
				t.Errorf("%s: %v", tt.name, err)
				continue
			}
			if r.Notice != nil && strings.ContainsAny(*r.Notice, "\r\n") {
				t.Errorf("%s: notice is not one line: %q", tt.name, *r.Notice)
			}
			t.Run(strings.ReplaceAll(tt.name, " ", "_"), func(t *testing.T) { tt.check(t, r) })
		}
	})
}

// TestContractPage checks page's line and byte modes and its clean-up.
func TestContractPage(t *testing.T) {
	const cmd = `for i in 1 2 3 4 5 6; do printf '\033[32mline %d\033[0m 10%%\r100%% %d\n' $i $i; done`
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var r execResult
		p.mustCall("exec", map[string]any{"command": cmd, "maxLines": 2}, &r)
		s := r.Stdout
		if s.Spool == nil || s.Head != "100% 1\n" || s.Tail != "100% 6\n" || s.Omitted == nil {
			t.Fatalf("exec: %+v", s)
		}
		id := s.Spool.ID
		// Clean by default: head + pages + tail read as one text.
		var mid window
		p.mustCall("page", map[string]any{"spool": id, "offset": s.Omitted.FromLine, "limit": s.Omitted.ToLine - s.Omitted.FromLine + 1}, &mid)
		if got := s.Head + mid.Content + s.Tail; got != "100% 1\n100% 2\n100% 3\n100% 4\n100% 5\n100% 6\n" {
			t.Errorf("head+page+tail: %q", got)
		}
		if mid.Path != s.Spool.Path || mid.StartLine != 2 || mid.EndLine != 5 || mid.TotalLines != 6 || mid.Next == nil || *mid.Next.Offset != 6 {
			t.Errorf("page window: %+v", mid)
		}
		// clean false: the raw bytes.
		var raw window
		p.mustCall("page", map[string]any{"spool": id, "limit": 1, "clean": false}, &raw)
		if raw.Content != "\x1b[32mline 1\x1b[0m 10%\r100% 1\n" {
			t.Errorf("page clean=false: %q", raw.Content)
		}
		// startByte: byte mode, whole lines, next.startByte.
		var b window
		p.mustCall("page", map[string]any{"spool": id, "startByte": 0, "maxBytes": 60}, &b)
		if b.Content != "100% 1\n100% 2\n" || b.StartByte != 0 || b.EndByte != 54 || b.Next == nil || b.Next.StartByte == nil || *b.Next.StartByte != 54 {
			t.Errorf("page by bytes: %+v", b)
		}
		var b2 window
		p.mustCall("page", map[string]any{"spool": id, "startByte": 30}, &b2)
		if b2.StartByte != 27 || b2.Next != nil || b2.EndLine != 6 {
			t.Errorf("page by bytes from mid-line: %+v", b2)
		}
		// Line mode past the end, and errors.
		var pe window
		p.mustCall("page", map[string]any{"spool": id, "offset": 99}, &pe)
		if pe.Content != "" || pe.Truncated || pe.Next != nil || pe.EndLine != 98 {
			t.Errorf("page past the end: %+v", pe)
		}
		if err := p.call("page", map[string]any{"spool": id, "offset": -1}, nil); err == nil || err.Code != -32602 || !strings.Contains(err.Message, "offset") {
			t.Errorf("page offset -1: %v", err)
		}
		if err := p.call("page", map[string]any{"spool": "0123456789abcdef0123456789abcdef"}, nil); err == nil || err.Code != -32001 || !strings.Contains(string(err.Data), "0123456789abcdef0123456789abcdef") {
			t.Errorf("page of an unknown spool: %v", err)
		}
	})
}

// TestContractSpoolCap checks that output past the spool cap is counted,
// the spool stops at the cap and says so, and the reply does not wait.
//
// One mode: the volume is about the spool, not the transport. With
// TOOLD_LONG=1, 110 MB past the spool file's cap of 100 MiB, through the
// binary built without -race (plainProcess): the detector reads the 100
// MiB back from the spool before the reply, 5 s alone under -race. The
// quick run caps the spool at a session quota of 1 MB instead
// (--spool-session-quota), through the -race binary: the same facts of a
// capped spool on the wire at a hundredth of the volume; the file cap
// itself is exec's TestSpoolCapAndFailure's (a cap of 1000 bytes, under
// -race).
func TestContractSpoolCap(t *testing.T) {
	t.Parallel()
	capBytes, total := int64(1_000_000), int64(1_100_000)
	var p *peer
	if testenv.Long() {
		capBytes, total = 100<<20, 110_000_000
		p = plainProcess(t, false)
		// 30 s and more beside the other tests at a load of 10. Past two
		// minutes the reply waits for something else.
		p.replyWait = 2 * time.Minute
	} else {
		p = spoolProcess(t, binPath, false, []string{"--spool-session-quota", strconv.FormatInt(capBytes, 10)})
	}
	var r execResult
	p.mustCall("exec", map[string]any{"command": "yes 123456789 | head -c " + strconv.FormatInt(total, 10)}, &r)
	s := r.Stdout
	if s.TotalBytes != total || s.TotalLines != total/10 || s.Spool == nil || !s.Spool.Capped || s.Spool.Bytes != capBytes {
		t.Fatalf("capped spool: total %d/%d spool %+v", s.TotalBytes, s.TotalLines, s.Spool)
	}
	if s.Omitted == nil || s.Omitted.ToLine != s.TotalLines-int64(strings.Count(s.Tail, "\n")) {
		t.Errorf("omitted %+v", s.Omitted)
	}
	var w window
	p.mustCall("page", map[string]any{"spool": s.Spool.ID, "offset": capBytes / 10, "limit": 5}, &w)
	if w.Content != "123456789\n" || w.TotalBytes != capBytes || w.Next != nil {
		t.Errorf("the spool's last line: %+v", w)
	}
}

// TestContractLifecycle checks initialize's result and limits, stats,
// session/close with a running command, and -32004 after shutdown.
func TestContractLifecycle(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		dir := ctFiles(t, map[string][]byte{"ten.txt": []byte("line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\n")})
		var res struct {
			ServerInfo *struct {
				Name    string  `json:"name"`
				Version *string `json:"version"`
			} `json:"serverInfo"`
			Session  string   `json:"session"`
			SpoolDir string   `json:"spoolDir"`
			Methods  []string `json:"methods"`
			Limits   struct {
				Read      map[string]int64 `json:"read"`
				ReadBytes map[string]int64 `json:"readBytes"`
				Exec      map[string]int64 `json:"exec"`
			} `json:"limits"`
		}
		p.mustCall("initialize", map[string]any{"clientInfo": map[string]string{"name": "contract", "version": "1"}, "cwd": dir,
			"limits": map[string]any{"readBytes": map[string]any{"maxBytes": 1 << 40}, "read": map[string]any{"maxLineChars": 0}}}, &res)
		if res.ServerInfo == nil || res.ServerInfo.Name != "toold" || res.ServerInfo.Version == nil || res.Session == "" {
			t.Errorf("initialize: %+v", res)
		}
		if fi, err := os.Stat(res.SpoolDir); err != nil || !fi.IsDir() {
			t.Errorf("spoolDir %q: %v", res.SpoolDir, err)
		}
		for _, m := range []string{"initialize", "session/close", "shutdown", "exit", "$/cancelRequest", "read", "readBytes", "page", "exec", "stats"} {
			found := false
			for _, n := range res.Methods {
				found = found || n == m
			}
			if !found {
				t.Errorf("methods %v lack %s", res.Methods, m)
			}
		}
		want := map[string]map[string]int64{
			"read":      {"limit": 2000, "maxBytes": 51200, "maxLineChars": 0},
			"readBytes": {"maxBytes": 262144},
			"exec":      {"maxLines": 2000, "maxBytes": 51200, "timeoutMs": 120000},
		}
		got := map[string]map[string]int64{"read": res.Limits.Read, "readBytes": res.Limits.ReadBytes, "exec": res.Limits.Exec}
		for sect, fields := range want {
			for f, v := range fields {
				if g, ok := got[sect][f]; !ok || g != v {
					t.Errorf("limits.%s.%s = %d (present %v), want %d", sect, f, g, ok, v)
				}
			}
		}
		// The session's limits are the per-call defaults.
		p.mustCall("initialize", map[string]any{"cwd": dir, "limits": map[string]any{
			"readBytes": map[string]any{"maxBytes": 15}, "exec": map[string]any{"maxLines": 3, "timeoutMs": 300}}}, nil)
		var w window
		p.mustCall("readBytes", map[string]any{"path": "ten.txt"}, &w)
		if w.Content != "line 1\nline 2\n" || *w.Next.StartByte != 14 {
			t.Errorf("readBytes with the session's maxBytes: %q", w.Content)
		}
		var r execResult
		// Its own timeout: the session's 300 ms is for the sleep below,
		// and a loaded machine may take that to start bash.
		p.mustCall("exec", map[string]any{"command": "seq 1 10", "timeoutMs": 30000}, &r)
		if r.Stdout.ShownLines != 3 || r.Stdout.Omitted == nil {
			t.Errorf("exec with the session's maxLines: %+v", r.Stdout)
		}
		p.mustCall("exec", map[string]any{"command": "sleep 20"}, &r)
		if !r.TimedOut {
			t.Errorf("exec with the session's timeoutMs: %+v", r)
		}
		// A negative limit is refused naming the field; a call's own param
		// beats the session's.
		for _, f := range []string{"readBytes.maxBytes", "exec.maxLines", "exec.maxBytes", "exec.timeoutMs", "read.maxBytes", "read.maxLineChars"} {
			sect, field, _ := strings.Cut(f, ".")
			err := p.call("initialize", map[string]any{"limits": map[string]any{sect: map[string]any{field: -1}}}, nil)
			if err == nil || err.Code != -32602 || !strings.Contains(err.Message, field) {
				t.Errorf("limits.%s -1: %v", f, err)
			}
		}

		// stats while a command runs.
		mark := filepath.Join(t.TempDir(), "started")
		_, slow := p.start("exec", map[string]any{"command": "echo started; touch " + mark + "; sleep 20", "timeoutMs": 60000})
		testenv.WaitFor(t, 20*time.Second, "the command to start", func() bool { _, err := os.Stat(mark); return err == nil })
		var st map[string]json.RawMessage
		p.mustCall("stats", nil, &st)
		for _, k := range []string{"sessions", "execsRunning", "cache", "spoolBytes", "uptimeMs"} {
			if _, ok := st[k]; !ok {
				t.Errorf("stats lack %s: %v", k, st)
			}
		}
		var cache map[string]json.RawMessage
		json.Unmarshal(st["cache"], &cache)
		for _, k := range []string{"entries", "hits", "misses", "invalidations", "indexBytes"} {
			if _, ok := cache[k]; !ok {
				t.Errorf("stats.cache lacks %s: %s", k, st["cache"])
			}
		}
		if n, _ := strconv.Atoi(string(st["execsRunning"])); n < 1 {
			t.Errorf("execsRunning %s while a command runs", st["execsRunning"])
		}
		if n, _ := strconv.Atoi(string(st["sessions"])); n < 1 {
			t.Errorf("sessions %s with a session open", st["sessions"])
		}
		// session/close cancels it: its reply carries what it printed.
		p.mustCall("session/close", nil, nil)
		m := p.await(slow)
		var er execResult
		if m.Error != nil || json.Unmarshal(m.Result, &er) != nil || !er.Cancelled || er.Stdout.Head != "started\n" || er.ExitCode != nil {
			t.Errorf("exec after session/close: %s %v", m.Result, m.Error)
		}
		if _, err := os.Stat(res.SpoolDir); !os.IsNotExist(err) {
			t.Errorf("spool dir after session/close: %v", err)
		}
		// A later request opens a new session with the same settings.
		w = window{}
		p.mustCall("read", map[string]any{"path": "ten.txt", "limit": 1}, &w)
		if w.Content != "line 1\n" {
			t.Errorf("read after session/close: %q", w.Content)
		}

		// After shutdown, every request is -32004.
		p.mustCall("shutdown", nil, nil)
		for _, c := range []struct {
			method string
			params any
		}{
			{"read", map[string]any{"path": "ten.txt"}}, {"readBytes", map[string]any{"path": "ten.txt"}},
			{"page", map[string]any{"spool": "x"}}, {"exec", map[string]any{"command": "true"}}, {"stats", nil},
			{"initialize", nil}, {"session/close", nil}, {"shutdown", nil}, {"frobnicate", nil},
		} {
			if err := p.call(c.method, c.params, nil); err == nil || err.Code != -32004 {
				t.Errorf("%s after shutdown: %v", c.method, err)
			}
		}
	})
}

// TestContractCancelRead cancels a read that is still indexing a large
// (sparse) file: -32800, and the connection goes on.
func TestContractCancelRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sparse.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.Repeat([]byte("text line\n"), 1000))
	if err := f.Truncate(4 << 30); err != nil {
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		id, reply := p.start("read", map[string]any{"path": path, "offset": 5000, "limit": 1})
		time.Sleep(50 * time.Millisecond)
		p.notify("$/cancelRequest", map[string]any{"id": jsonNumber(id)})
		began := time.Now()
		msg := p.await(reply)
		if msg.Error == nil || msg.Error.Code != -32800 {
			t.Errorf("cancelled read: %s %v", msg.Result, msg.Error)
		}
		if d := time.Since(began); d > 5*time.Second {
			t.Errorf("the cancelled read answered after %v", d)
		}
		var w window
		p.mustCall("read", map[string]any{"path": testdata("read/utf8.txt")}, &w)
		// A cancel of an unknown or finished id is ignored.
		p.notify("$/cancelRequest", map[string]any{"id": 424242})
		p.notify("$/cancelRequest", map[string]any{"id": jsonNumber(id)})
		p.mustCall("stats", nil, nil)
	})
}

// TestContractMessageSizeBoundary sends a message of exactly 16 MiB (answered)
// and one a byte over (-32600), in both framings.
//
// Process mode only: the in-process and forwarded daemons frame with the
// same rpc.FrameReader (TestFrameReaderRoundTrip, TestHeadersInAnyOrder).
// The message a byte over is dropped unread: the quick run sends it to the
// -race binary. The message of exactly 16 MiB is decoded, one goroutine's
// work that the race detector has nothing to say of and that took 8
// CPU-seconds under -race (1.5 without): it goes with TOOLD_LONG=1 only, to
// the binary built without -race (plainProcess). The quick run has the
// boundary's other side at a smaller cap, both framings, in rpc's
// TestMaxMessageBytesBoundary.
func TestContractMessageSizeBoundary(t *testing.T) {
	t.Parallel()
	send := func(p *peer, id, size int) {
		head, tail := `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"stats","params":{"pad":"`, `"}}`
		p.sendPadded(head, size-len(head)-len(tail), 'a', tail)
	}
	// The quick run has one framing; rpc's TestMaxMessageBytesBoundary
	// holds the bound in both.
	for _, headers := range framings(t) {
		t.Run("headers="+strconv.FormatBool(headers), func(t *testing.T) {
			t.Parallel()
			var p *peer
			if testenv.Long() {
				p = plainProcess(t, headers)
				// Decoding 16 MiB takes a second alone and far longer beside
				// the rest of the suite on 2 cores: a generous bound.
				p.replyWait = 3 * time.Minute
				p.mu.Lock()
				ok := make(chan message, 1)
				p.replies["900001"] = ok
				p.mu.Unlock()
				send(p, 900001, 16<<20)
				if m := p.await(ok); m.Error != nil {
					t.Errorf("a message of exactly 16 MiB: %v", m.Error)
				}
			} else {
				p = startProcess(t, headers)
			}
			send(p, 900002, 16<<20+1)
			if m := p.orphan(); m.Error == nil || m.Error.Code != -32600 {
				t.Errorf("a message of 16 MiB + 1: %+v", m.Error)
			}
			p.mustCall("stats", nil, nil)
		})
	}
}

// TestContractCall checks toold call: the result on stdout, an error as JSON
// on stderr with status 1.
func TestContractCall(t *testing.T) {
	t.Parallel()
	dir := ctFiles(t, map[string][]byte{"f.txt": []byte("one\ntwo\n")})
	root := filepath.Join(t.TempDir(), "spool")
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(binPath, append([]string{"--spool-root", root, "call"}, args...)...)
		cmd.Dir = dir
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Run()
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
	out, _, code := run("read", `{"path":"f.txt","limit":1}`)
	var w window
	if code != 0 || json.Unmarshal([]byte(out), &w) != nil || w.Content != "one\n" || w.Path != filepath.Join(dir, "f.txt") || *w.Next.Offset != 2 {
		t.Errorf("call read: %d %s", code, out)
	}
	out, _, code = run("stats")
	var st map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st["uptimeMs"] == nil {
		t.Errorf("call stats: %d %s", code, out)
	}
	for i, c := range []struct {
		args []string
		code int64
	}{
		{[]string{"read", `{"path":"missing.txt"}`}, -32001},
		{[]string{"frobnicate", `{}`}, -32601},
		{[]string{"read", `{"path":"f.txt","offset":-1}`}, -32602},
	} {
		// toold call passes the first error on with TOOLD_LONG=1 for
		// all; the quick run asks a daemon in this process for the
		// others' codes, a start of the -race binary saved each.
		if i > 0 && !testenv.Long() {
			p := startInProcess(t, false)
			p.mustCall("initialize", map[string]string{"cwd": dir}, nil)
			if err := p.call(c.args[0], json.RawMessage(c.args[1]), nil); err == nil || err.Code != c.code {
				t.Errorf("%v: %v, want code %d", c.args, err, c.code)
			}
			continue
		}
		out, errOut, code := run(c.args...)
		var e struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		}
		if code != 1 || out != "" || json.Unmarshal([]byte(strings.TrimSpace(errOut)), &e) != nil || e.Code != c.code {
			t.Errorf("call %v: status %d stdout %q stderr %q", c.args, code, out, errOut)
		}
	}
}

// ---------------------------------------------------------------------------
// Discrepancies: each asserts the contract where toold differs today.

// Contract: "a client that calls anything first gets a session".
func TestContractStatsCountsTheCallersSession(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var st struct {
			Sessions int `json:"sessions"`
		}
		p.mustCall("stats", nil, &st)
		if st.Sessions != 1 {
			t.Errorf("stats as the first call: sessions %d, want 1", st.Sessions)
		}
	})
}

// Contract: truncated is "true when the file goes on past endLine"; next is
// null at the end. A partial window of the last line does not go on past it.
func TestContractPartialLastLineNotTruncated(t *testing.T) {
	dir := ctFiles(t, map[string][]byte{"f": []byte("short\n" + strings.Repeat("y", 100))})
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var w window
		p.mustCall("read", map[string]any{"path": filepath.Join(dir, "f"), "offset": 2, "maxBytes": 10}, &w)
		if !w.PartialLine || w.EndLine != 2 || w.Next != nil {
			t.Fatalf("partial last line: %+v", w)
		}
		if w.Truncated {
			t.Errorf("truncated true for a window that ends on the last line")
		}
	})
}

// A notice names the call to go on with; at the end of the file there is
// none, so no notice may send the reader past it.
func TestContractNoContinueNoticeAtTheEnd(t *testing.T) {
	data := []byte("short\n" + strings.Repeat("é", 10) + "\n")
	dir := ctFiles(t, map[string][]byte{"f": data})
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		for _, start := range []int{24, 25} { // "é\n" and, moved to a boundary, "\n"
			var w window
			p.mustCall("readBytes", map[string]any{"path": filepath.Join(dir, "f"), "startByte": start, "maxBytes": 3}, &w)
			if w.Next != nil || w.EndByte != int64(len(data)) {
				t.Fatalf("slice at %d: %+v", start, w)
			}
			if w.Notice != nil && (strings.Contains(*w.Notice, "startByte="+strconv.Itoa(len(data))) || strings.Contains(*w.Notice, "continue")) {
				t.Errorf("slice at %d ends the file but the notice says to go on: %q", start, *w.Notice)
			}
		}
	})
}

// Contract: endLine = startLine - 1 when content holds no line.
func TestContractEmptySliceHoldsNoLine(t *testing.T) {
	dir := ctFiles(t, map[string][]byte{"f": []byte("ééééé")})
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var w window
		p.mustCall("readBytes", map[string]any{"path": filepath.Join(dir, "f"), "startByte": 9, "maxBytes": 2}, &w)
		if w.Content != "" || w.Next != nil {
			t.Fatalf("slice: %+v", w)
		}
		if w.EndLine != w.StartLine-1 || w.PartialLine {
			t.Errorf("empty window: lines %d-%d partialLine %v", w.StartLine, w.EndLine, w.PartialLine)
		}
	})
}

// Notices name the next call; for page that is page with the spool, not
// readBytes (which needs a path the notice does not give).
func TestContractPageNoticesNamePage(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var r execResult
		p.mustCall("exec", map[string]any{"command": "echo short; printf 'y%.0s' $(seq 1 3000); echo; seq 1 3000"}, &r)
		id := r.Stdout.Spool.ID
		for _, params := range []map[string]any{
			{"spool": id, "offset": 2, "maxBytes": 100}, // partial
			{"spool": id, "limit": 3},                   // clipped
			{"spool": id, "startByte": 10, "maxBytes": 100},
		} {
			var w window
			p.mustCall("page", params, &w)
			if w.Notice == nil {
				t.Errorf("page %v: no notice", params)
				continue
			}
			if strings.Contains(*w.Notice, "readBytes") || !strings.Contains(*w.Notice, "page") {
				t.Errorf("page %v: notice %q does not name page", params, *w.Notice)
			}
		}
	})
}

// Contract: page's clean (default true) is the preview's clean-up, for
// every window.
func TestContractPageCleansPartialLines(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var r execResult
		p.mustCall("exec", map[string]any{"command": `for i in $(seq 1 50); do printf '\033[32mgreen\033[0m '; done; echo; seq 1 3000`}, &r)
		id := r.Stdout.Spool.ID
		for _, params := range []map[string]any{
			{"spool": id, "maxBytes": 40},
			{"spool": id, "startByte": 5, "maxBytes": 40},
		} {
			var w window
			p.mustCall("page", params, &w)
			if !w.PartialLine || strings.Contains(w.Content, "\x1b") {
				t.Errorf("page %v: %q (partial %v)", params, w.Content, w.PartialLine)
			}
		}
	})
}

// A JSON number with an integral value is that integer whatever its
// spelling; refusing it naming the field would also do, but not taking it
// as a huge number.
func TestContractIntegralNumbers(t *testing.T) {
	dir := ctFiles(t, map[string][]byte{"f": []byte("1\n2\n3\n4\n5\n")})
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		for _, c := range []struct {
			raw        string
			start, end int64
		}{
			{`"limit":2.0`, 1, 2},
			{`"limit":2e0`, 1, 2},
			{`"offset":3e0,"limit":1`, 3, 3},
		} {
			p.mu.Lock()
			ch := make(chan message, 1)
			p.replies["900100"] = ch
			p.mu.Unlock()
			p.send([]byte(`{"jsonrpc":"2.0","id":900100,"method":"read","params":{"path":"` + filepath.Join(dir, "f") + `",` + c.raw + `}}`))
			m := p.await(ch)
			if m.Error != nil {
				if m.Error.Code != -32602 {
					t.Errorf("%s: %v", c.raw, m.Error)
				}
				continue
			}
			var w window
			json.Unmarshal(m.Result, &w)
			if w.StartLine != c.start || w.EndLine != c.end {
				t.Errorf("%s: lines %d-%d, want %d-%d", c.raw, w.StartLine, w.EndLine, c.start, c.end)
			}
		}
	})
}

// Contract errors: a path that cannot be resolved is one of the file codes,
// not an internal error.
func TestContractSymlinkLoopCode(t *testing.T) {
	dir := t.TempDir()
	os.Symlink("b", filepath.Join(dir, "a"))
	os.Symlink("a", filepath.Join(dir, "b"))
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		err := p.call("read", map[string]any{"path": filepath.Join(dir, "a")}, nil)
		if err == nil || err.Code != -32001 || !strings.Contains(string(err.Data), `"path"`) {
			t.Errorf("symlink loop: %v", err)
		}
	})
}

// Contract: toold call prints the error on stderr with exit status 1.
func TestContractCallBadParamsStatus(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binPath, "--spool-root", filepath.Join(t.TempDir(), "spool"), "call", "read", "not json")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 || errb.Len() == 0 {
		t.Errorf("call with bad JSON: status %d stderr %q", code, errb.String())
	}
}

// JSON-RPC 2.0: an id is a string, a number or null; a request with any of
// them is answered with the same id.
func TestContractRequestIDs(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		p.mu.Lock()
		ch := make(chan message, 1)
		p.replies["-5"] = ch
		p.mu.Unlock()
		p.send([]byte(`{"jsonrpc":"2.0","id":-5,"method":"stats"}`))
		if m := p.await(ch); m.Error != nil {
			t.Errorf("id -5: %v", m.Error)
		}
		p.send([]byte(`{"jsonrpc":"2.0","id":null,"method":"stats"}`))
		select {
		case m := <-p.orphans:
			if m.Error != nil || len(m.Result) == 0 {
				t.Errorf("id null: %+v", m)
			}
		case <-time.After(p.waitFor()): // 5 s was too short at a load of 14
			t.Error("id null: no reply")
		}
	})
}

// TestContractPipelinedLifecycle: what a client sends before shutdown or
// session/close is decided in the order it sent it, not in the order the
// daemon's goroutines run. A read piped just before shutdown is answered;
// one piped after it gets -32004. An exec and a background process piped
// just before session/close are cancelled by it, and the session's
// processes are gone after it.
func TestContractPipelinedLifecycle(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.txt")
	os.WriteFile(file, []byte("one\ntwo\n"), 0o644)
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		for range 3 {
			p := start(t)
			_, before := p.start("read", map[string]any{"path": file})
			_, stats := p.start("stats", nil)
			_, shut := p.start("shutdown", nil)
			_, after := p.start("read", map[string]any{"path": file})
			if m := p.await(before); m.Error != nil || !strings.Contains(string(m.Result), `"content":"one\ntwo\n"`) {
				t.Errorf("read sent before shutdown: %+v %s", m.Error, m.Result)
			}
			if m := p.await(stats); m.Error != nil {
				t.Errorf("stats sent before shutdown: %+v", m.Error)
			}
			if m := p.await(shut); m.Error != nil {
				t.Errorf("shutdown: %+v", m.Error)
			}
			if m := p.await(after); m.Error == nil || m.Error.Code != -32004 {
				t.Errorf("read sent after shutdown: %+v %s", m.Error, m.Result)
			}
			p.close()
		}
		p := start(t)
		for range 3 {
			_, ex := p.start("exec", map[string]any{"command": "sleep 5; echo late"})
			_, bg := p.start("exec", map[string]any{"command": "sleep 30", "yieldMs": 0})
			_, closed := p.start("session/close", nil)
			var r execResult
			if m := p.await(ex); m.Error != nil || json.Unmarshal(m.Result, &r) != nil || !r.Cancelled {
				t.Errorf("exec sent before session/close: %+v %s", m.Error, m.Result)
			}
			if m := p.await(bg); m.Error != nil && m.Error.Code != -32800 {
				t.Errorf("background exec sent before session/close: %+v", m.Error)
			}
			if m := p.await(closed); m.Error != nil {
				t.Errorf("session/close: %+v", m.Error)
			}
			var list []map[string]any
			p.mustCall("process/list", nil, &list)
			if len(list) != 0 {
				t.Errorf("processes after session/close: %v", list)
			}
		}
	})
}

// TestContractExitAnswersInFlight: exit cancels what runs, and what runs
// still answers before the connection ends, in every mode (the shared
// daemon wrote nothing after exit before).
func TestContractExitAnswersInFlight(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		_, ex := p.start("exec", map[string]any{"command": "echo started; sleep 20"})
		var st struct {
			ExecsRunning int `json:"execsRunning"`
		}
		// It may not have started when exit comes: exec answers cancelled either way.
		testenv.Until(10*time.Second, func() bool { p.mustCall("stats", nil, &st); return st.ExecsRunning > 0 })
		p.notify("exit", nil)
		var r execResult
		if m := p.await(ex); m.Error != nil || json.Unmarshal(m.Result, &r) != nil || !r.Cancelled {
			t.Errorf("exec running at exit: %+v %s", m.Error, m.Result)
		}
		if code, _ := p.wait(); code != 1 {
			t.Errorf("exit without shutdown: code %d, want 1", code)
		}
	})
}

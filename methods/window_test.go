package methods

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/truncate"
)

func newTestService(t testing.TB) (*Service, *Session) {
	files, err := fileindex.New(fileindex.Options{Spacing: 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	return &Service{Files: files}, &Session{ID: "t", Settings: &Settings{Cwd: t.TempDir(), Limits: protocol.DefaultLimits}}
}

// walkBytes follows next.startByte from 0 and returns the windows' content
// put end to end, checking each step moves forward and never splits a
// character.
func walkBytes(t testing.TB, svc *Service, path string, maxBytes int, clean bool) []byte {
	var got []byte
	var pos int64
	for steps := 0; ; steps++ {
		w, err := svc.window(context.Background(), path, pathOpener(path), nil, &byteRequest{startByte: pos, maxBytes: maxBytes, clean: clean})
		if err != nil {
			t.Fatalf("readBytes at %d: %v", pos, err)
		}
		if steps > 0 && w.StartByte != pos {
			t.Fatalf("window at %d starts at %d", pos, w.StartByte)
		}
		if w.EndByte-w.StartByte > int64(maxBytes) && !(w.PartialLine && w.EndByte-w.StartByte <= utf8.UTFMax) {
			t.Fatalf("window at %d spans %d bytes, max %d", pos, w.EndByte-w.StartByte, maxBytes)
		}
		got = append(got, w.Content...)
		if w.Next == nil {
			if w.EndByte != w.TotalBytes {
				t.Fatalf("walk ended at %d of %d", w.EndByte, w.TotalBytes)
			}
			return got
		}
		if *w.Next.StartByte <= pos {
			t.Fatalf("no progress at %d", pos)
		}
		pos = *w.Next.StartByte
	}
}

// walkLines follows next.offset from 1, finishing partial lines with
// readBytes as the notice says, and returns the content put end to end.
// Each window is checked by fitted, then by check when it is not nil.
func walkLines(t testing.TB, svc *Service, path string, lr lineRequest, check func(w *protocol.Window)) []byte {
	var got []byte
	for off := int64(1); ; {
		lr.offset = off
		w := fitted(t, svc, path, &lr, nil)
		if w.StartLine != off || lr.Limit > 0 && w.EndLine-w.StartLine+1 > int64(lr.Limit) {
			t.Fatalf("window at %d: lines %d-%d", off, w.StartLine, w.EndLine)
		}
		if check != nil {
			check(w)
		}
		got = append(got, w.Content...)
		if w.PartialLine {
			// readBytes the rest of the line, from the window's end.
			for pos := w.EndByte; ; {
				b := fitted(t, svc, path, nil, &byteRequest{startByte: pos, maxBytes: lr.MaxBytes, render: lr.render})
				if b.StartLine != w.StartLine {
					break
				}
				got = append(got, b.Content...)
				if b.Next == nil {
					break
				}
				pos = *b.Next.StartByte
			}
		}
		if w.Next == nil {
			return got
		}
		off = *w.Next.Offset
	}
}

// writeFile writes data to a file of its own in a new temporary directory.
func writeFile(t testing.TB, data []byte) string {
	return testenv.WriteFile(t, filepath.Join(t.TempDir(), "f"), data)
}

var walkFiles = map[string][]byte{
	"empty":   nil,
	"newline": []byte("\n"),
	"crlf":    []byte("one\r\ntwo\r\n\r\nthree"),
	// 10 lines in the quick run (100 with TOOLD_LONG=1): each cuts the
	// same runes, and a walk a byte at a time was a window a byte.
	"multibyte":  bytes.Repeat([]byte("日本語 é 😀\n"), testenv.Size(10, 100)),
	"no newline": []byte("a\nb\nc"),
	// 1 MB in the quick run (5 MB with TOOLD_LONG=1): still four windows
	// at the largest maxBytes and four of fileindex's read buffers.
	"5 MB line":   bytes.Repeat([]byte("abcdefghé"), testenv.Size(1<<20, 5<<20)/10),
	"long middle": []byte("x\n" + strings.Repeat("€", 40000) + "\ny\n"),
	// The long middle line's small steps in the quick run (see smallSteps).
	"middle": []byte("x\n" + strings.Repeat("€", 1000) + "\ny\n"),
}

// smallSteps says whether a walk of maxBytes a step reads a file of n
// bytes. In the quick run walks of fewer than 1,000 bytes a step leave out
// the files over 64 KiB (the long middle line at 10 bytes a step was
// 12,000 windows, most of TestReadWalk's time under -race): the middle
// line, 3 KB, is walked at the same steps and cuts its runes and finishes
// its partial line the same way at every window; the long middle line, 120
// KB, keeps the steps that cross 64 KiB inside it.
func smallSteps(n, maxBytes int) bool {
	return maxBytes >= 1000 || n <= 64<<10 || testenv.Long()
}

// TestReadBytesWalk walks each file with readBytes at each maxBytes. The
// quick run leaves out walks of over 2,000 steps (the long middle line a
// byte or three at a time: 13 s each under -race) and those of smallSteps;
// the middle line three bytes at a time and the multibyte file a byte at a
// time cut the same runes.
func TestReadBytesWalk(t *testing.T) {
	t.Parallel() // a service of its own; runs beside the waits
	svc, _ := newTestService(t)
	maxSteps := testenv.Size(2000, 1<<30)
	for name, data := range walkFiles {
		path := writeFile(t, data)
		for _, max := range []int{1, 3, 100, 65536, protocol.MaxWindowBytes} {
			if len(data) > 1<<20 && max < 65536 || len(data)/max > maxSteps || !smallSteps(len(data), max) {
				continue
			}
			if got := walkBytes(t, svc, path, max, false); !bytes.Equal(got, data) {
				t.Errorf("%s, maxBytes %d: walk gave %d bytes, want %d", name, max, len(got), len(data))
			}
		}
	}
}

func TestReadWalk(t *testing.T) {
	t.Parallel() // a service of its own; runs beside the waits
	svc, _ := newTestService(t)
	for name, data := range walkFiles {
		path := writeFile(t, data)
		for _, lr := range []truncate.LineOptions{{Limit: 1, MaxBytes: 10}, {Limit: 7, MaxBytes: 100}, {Limit: 2000, MaxBytes: 51200}} {
			if len(data) > 1<<20 && lr.MaxBytes < 51200 || !smallSteps(len(data), lr.MaxBytes) {
				continue
			}
			if got := walkLines(t, svc, path, lineRequest{LineOptions: lr}, nil); !bytes.Equal(got, data) {
				t.Errorf("%s, %+v: walk gave %d bytes, want %d", name, lr, len(got), len(data))
			}
		}
	}
}

func FuzzReadBytesWalk(f *testing.F) {
	for _, data := range walkFiles {
		if len(data) < 2<<10 { // the middle line (3 KB) would add 1,200 windows
			f.Add(data, 5)
		}
	}
	svc, _ := newTestService(f)
	f.Fuzz(func(t *testing.T, data []byte, maxBytes int) {
		if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 || truncate.IsBinary(data) {
			return // the walk gives back valid UTF-8 text; other bytes come back as U+FFFD
		}
		maxBytes = 1 + (maxBytes&0xffff)%300
		path := writeFile(t, data)
		if got := walkBytes(t, svc, path, maxBytes, false); !bytes.Equal(got, data) {
			t.Fatalf("maxBytes %d: walk gave %q, want %q", maxBytes, got, data)
		}
		if got := walkLines(t, svc, path, lineRequest{LineOptions: truncate.LineOptions{Limit: 3, MaxBytes: maxBytes}}, nil); !bytes.Equal(got, data) {
			t.Fatalf("read walk, maxBytes %d: gave %q, want %q", maxBytes, got, data)
		}
	})
}

func TestResolve(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(root, "in.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(outside, "out.txt"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(outside, "out.txt"), filepath.Join(root, "link"))
	os.Symlink(outside, filepath.Join(root, "dirlink"))
	roots, err := ResolveRoots(root, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	s := &Session{Settings: &Settings{Cwd: root, Roots: roots}}
	tests := []struct {
		path string
		ok   bool
	}{
		{"in.txt", true},
		{filepath.Join(root, "in.txt"), true},
		{"missing.txt", true}, // inside: the open then says it is missing
		{"link", false},
		{"dirlink/out.txt", false},
		{"dirlink/missing", false},
		{"../" + filepath.Base(outside) + "/out.txt", false},
		{filepath.Join(outside, "out.txt"), false},
		{root + "/sub/../in.txt", true},
	}
	for _, tt := range tests {
		_, err := s.resolve("path", tt.path)
		if (err == nil) != tt.ok {
			t.Errorf("resolve(%q): %v, want ok=%v", tt.path, err, tt.ok)
		}
	}
}

// pathOpener opens path as a session without roots does.
func pathOpener(path string) opener {
	return func() (*os.File, error) { return (&Session{Settings: &Settings{}}).open(path) }
}

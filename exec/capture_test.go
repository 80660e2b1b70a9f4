package exec

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/internal/testtext"
	"github.com/toold/toold/truncate"
)

// memSpool is a SpoolFile in memory, or in a file when f is set (which the
// scanner can then read on from: scanner.follow), where it only counts.
type memSpool struct {
	buf    bytes.Buffer
	f      *os.File
	n      int64 // bytes written (kept)
	limit  int64
	capped bool
	closed bool
}

func (m *memSpool) Write(p []byte) (int, error) {
	n := len(p)
	if m.limit > 0 && m.n+int64(len(p)) > m.limit {
		p = p[:m.limit-m.n]
		m.capped = true
	}
	if m.f != nil {
		m.f.Write(p)
	} else {
		m.buf.Write(p)
	}
	m.n += int64(len(p))
	return n, nil
}
func (m *memSpool) ID() string   { return "mem" }
func (m *memSpool) Bytes() int64 { return m.n }
func (m *memSpool) Capped() bool { return m.capped }
func (m *memSpool) Err() error   { return nil }
func (m *memSpool) Path() string {
	if m.f != nil {
		return m.f.Name()
	}
	return "/mem"
}
func (m *memSpool) Close() error {
	m.closed = true
	if m.f != nil {
		return m.f.Close()
	}
	return nil
}
func (m *memSpool) String() string { return m.buf.String() }

// Open opens the file the spool writes, by its name: the test's own file,
// which no command swaps.
func (m *memSpool) Open() (*os.File, error) {
	if m.f == nil {
		return nil, fs.ErrNotExist
	}
	return os.Open(m.f.Name())
}

// checkFollow checks that a scanner reading on from a spool file in dir
// finds what one handed each chunk (spooled in memory) finds, and returns
// the stream.
func checkFollow(t *testing.T, dir string, out []byte, opt truncate.PreviewOptions, keep int, chunks []int) Stream {
	t.Helper()
	handed, _ := runCapture(out, opt, keep, chunks)
	return checkRead(t, dir, handed, out, opt, keep, chunks)
}

// checkRead is checkFollow given the stream of the capture handed each
// chunk (runCapture's, as checkCapture returns it).
func checkRead(t *testing.T, dir string, handed Stream, out []byte, opt truncate.PreviewOptions, keep int, chunks []int) Stream {
	t.Helper()
	read, _ := runCaptureIn(dir, true, 0, out, opt, keep, chunks)
	if read.Spool != nil {
		read.Spool.Path = handed.Spool.Path
	}
	if !reflect.DeepEqual(read, handed) {
		t.Fatalf("read back from the spool file:\n%+v\nhanded each chunk:\n%+v", read, handed)
	}
	return read
}

// runCapture feeds out to a capture in chunks of the given sizes (cycled).
func runCapture(out []byte, opt truncate.PreviewOptions, keep int, chunks []int) (Stream, *memSpool) {
	return runCaptureIn("", false, 0, out, opt, keep, chunks)
}

// runCaptureIn is runCapture with a spool in memory when dir is "", else
// in a file in dir, which the scanner reads on from when follow is set
// (else it is handed each chunk); limit caps the spool.
func runCaptureIn(dir string, follow bool, limit int64, out []byte, opt truncate.PreviewOptions, keep int, chunks []int) (Stream, *memSpool) {
	return runCaptureInto(nil, dir, follow, limit, out, opt, keep, chunks)
}

// runCaptureInto is runCaptureIn that also sets *found, when found is not
// nil, to what the capture's scanner found, before the preview's choice.
func runCaptureInto(found *highlight.Result, dir string, follow bool, limit int64, out []byte, opt truncate.PreviewOptions, keep int, chunks []int) (Stream, *memSpool) {
	var sp *memSpool
	size := len(out)
	c := newCapture(opt, "stdout", func(string) (SpoolFile, error) {
		if sp != nil {
			panic("spool opened twice")
		}
		sp = &memSpool{limit: limit}
		if dir == "" {
			sp.buf.Grow(size) // at once: under -race each doubling's copy faults in pages again, and their shadow
		} else {
			f, err := os.CreateTemp(dir, "spool")
			if err != nil {
				return nil, err
			}
			sp.f = f
		}
		return sp, nil
	})
	if keep > 0 {
		c.keep = max(keep, opt.MaxBytes) // as in production: keep >= MaxBytes
	}
	c.followTried = !follow // asked already: the answer was no
	if dir == "" {
		// A verdict's evidence from the spool in memory, as the capture
		// takes it from its prefix when that holds the whole output.
		c.readLines = func(_ string, from, to int64) ([]byte, error) { return nthLines(sp.buf.Bytes(), from, to), nil }
	}
	// Two buffers used as the reader uses them: the next chunk goes to the
	// other one while the capture holds the last; a buffer is scribbled
	// over before it is reused, as a read would.
	var bufs [2][]byte
	k := 0
	for i := 0; len(out) > 0; i++ {
		n := 1
		if len(chunks) > 0 {
			n = max(chunks[i%len(chunks)], 1)
		}
		n = min(n, len(out))
		if c.holds() {
			k ^= 1
		}
		b := bufs[k][:cap(bufs[k])]
		scribble(b)
		bufs[k] = append(b[:0], out[:n]...)
		c.write(bufs[k])
		out = out[n:]
	}
	s := c.finish()
	if found != nil && c.scan != nil {
		*found = c.scan.res
	}
	return s, sp
}

// scribble fills b with 0xff, by doubling copies: a loop of byte stores
// is a call into the race detector a byte under -race.
func scribble(b []byte) {
	if len(b) == 0 {
		return
	}
	b[0] = 0xff
	for j := 1; j < len(b); j *= 2 {
		copy(b[j:], b[:j])
	}
}

// checkCapture checks what a capture of out must give without clean-up or
// clipping: exact totals, nothing lost between head, spool and tail, and no
// spool for output shown whole. It returns the stream.
func checkCapture(t *testing.T, out []byte, opt truncate.PreviewOptions, keep int, chunks []int) Stream {
	t.Helper()
	s, sp := runCapture(out, opt, keep, chunks)
	if s.TotalBytes != int64(len(out)) || s.TotalLines != testtext.CountLines(out) {
		t.Fatalf("totals %d bytes %d lines, want %d %d", s.TotalBytes, s.TotalLines, len(out), testtext.CountLines(out))
	}
	if s.SpoolError != "" {
		t.Fatalf("spool error %s", s.SpoolError)
	}
	if !s.Truncated {
		if sp != nil || s.Spool != nil {
			t.Fatalf("untruncated output spooled (%d bytes)", len(out))
		}
		if s.Head != truncate.Valid(out) || s.Tail != "" || s.Omitted != nil {
			t.Fatalf("untruncated preview is not the output: %+v", s)
		}
		return s
	}
	if sp == nil || s.Spool == nil || !sp.closed {
		t.Fatal("truncated output not spooled")
	}
	if !bytes.Equal(sp.buf.Bytes(), out) || s.Spool.Bytes != int64(len(out)) {
		t.Fatalf("spool holds %d bytes, not the output (%d)", sp.buf.Len(), len(out))
	}
	o := s.Omitted
	if o == nil || o.FromLine < 1 || o.FromLine > o.ToLine || o.ToLine > s.TotalLines {
		t.Fatalf("bad omitted %+v", o)
	}
	mid := testtext.Lines(sp.buf.Bytes(), o.FromLine, o.ToLine)
	if int64(len(mid)) != o.Bytes {
		t.Fatalf("omitted bytes %d, lines hold %d", o.Bytes, len(mid))
	}
	if s.Binary {
		if s.Head != "" || s.Tail != "" || o.FromLine != 1 || o.ToLine != s.TotalLines {
			t.Fatalf("binary shows something: %+v", s)
		}
		return s
	}
	if got := s.Head + truncate.Valid(mid) + s.Tail; got != truncate.Valid(out) {
		t.Fatalf("head+omitted+tail != output\nhead %q\ntail %q\nomitted %+v", s.Head, s.Tail, *o)
	}
	if s.ShownLines > opt.MaxLines || s.ShownBytes > opt.MaxBytes {
		t.Fatalf("over budget: %d lines %d bytes", s.ShownLines, s.ShownBytes)
	}
	return s
}

// genOutput makes command-like output: short and long lines, multi-byte
// text, empty lines, CRLF, maybe no trailing newline.
func genOutput(r *rand.Rand, size int) []byte {
	words := []string{"ok", "error:", "héllo", "wörld", "日本語", "🙂", "\t", "x", "build", "a-much-longer-word-for-the-line"}
	var b bytes.Buffer
	for b.Len() < size {
		switch r.IntN(10) {
		case 0:
			b.WriteString(strings.Repeat("z", r.IntN(3000))) // long line
		case 1: // empty line
		default:
			for n := r.IntN(12); n > 0; n-- {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteByte(' ')
			}
		}
		if r.IntN(8) == 0 {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
	}
	out := b.Bytes()[:size]
	return out
}

// TestCaptureGenerated: random outputs, budgets, keeps and chunkings: 24
// in the quick run, the first 24 of the 300 TOOLD_LONG=1 runs (each mode
// and keep as often: twice each of the twelve pairs; FuzzCapture and
// FuzzCaptureFollow go on from there).
func TestCaptureGenerated(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir() // the spool files of every case's checkFollow
	for i := range testenv.Size(24, 300) {
		size := r.IntN(40000)
		if i%10 == 0 {
			size = r.IntN(200)
		}
		out := genOutput(r, size)
		opt := truncate.PreviewOptions{MaxLines: 1 + r.IntN(200), MaxBytes: 1 + r.IntN(8000), Mode: []string{"headTail", "head", "tail"}[i%3]}
		keep := []int{0, 64, 1000, 4 * opt.MaxBytes}[i%4]
		chunks := []int{1 + r.IntN(5000), 1 + r.IntN(100), 1 + r.IntN(70000)}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			checkRead(t, dir, checkCapture(t, out, opt, keep, chunks), out, opt, keep, chunks)
		})
	}
}

func TestCaptureCases(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("0123456789\n"), 10000)
	tests := []struct {
		name string
		out  []byte
		opt  truncate.PreviewOptions
		keep int
	}{
		{"empty", nil, truncate.PreviewOptions{MaxLines: 10, MaxBytes: 100}, 0},
		{"fits", []byte("a\nb\n"), truncate.PreviewOptions{MaxLines: 10, MaxBytes: 100}, 0},
		{"no newline", []byte("abc"), truncate.PreviewOptions{MaxLines: 10, MaxBytes: 100}, 0},
		{"by lines", big, truncate.PreviewOptions{MaxLines: 10, MaxBytes: 100000}, 0},
		{"by bytes", big, truncate.PreviewOptions{MaxLines: 100000, MaxBytes: 100}, 0},
		{"past the ring", big, truncate.PreviewOptions{MaxLines: 10, MaxBytes: 100}, 50},
		{"one huge line", bytes.Repeat([]byte("y"), 100000), truncate.PreviewOptions{MaxLines: 10, MaxBytes: 100}, 1000},
		{"huge line then lines", append(bytes.Repeat([]byte("y"), 5000), "\na\nb\n"...), truncate.PreviewOptions{MaxLines: 10, MaxBytes: 100}, 1000},
		{"zero budget", []byte("a\n"), truncate.PreviewOptions{}, 0},
		{"binary", append([]byte("\x00\x01\x02binary"), big...), truncate.PreviewOptions{MaxLines: 10, MaxBytes: 100}, 0},
		{"short binary", []byte("\x00\x01\x02"), truncate.PreviewOptions{MaxLines: 10, MaxBytes: 100}, 0},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkCapture(t, tt.out, tt.opt, tt.keep, []int{4096})
			handed := checkCapture(t, tt.out, tt.opt, tt.keep, []int{1, 7, 100000})
			checkRead(t, dir, handed, tt.out, tt.opt, tt.keep, []int{1, 7, 100000})
		})
	}
}

func TestCaptureSpoolKeptWhenClipped(t *testing.T) {
	t.Parallel()
	out := []byte(strings.Repeat("w", 50) + "\n")
	s, sp := runCapture(out, truncate.PreviewOptions{MaxLines: 10, MaxBytes: 1000, MaxLineChars: 10}, 0, nil)
	if s.Truncated || s.ClippedLines != 1 || s.Head != strings.Repeat("w", 10)+"\n" {
		t.Fatalf("clipped preview %+v", s)
	}
	if sp == nil || sp.String() != string(out) {
		t.Fatal("a clipped line was not spooled")
	}
}

func TestCaptureCleanFitsWithoutSpool(t *testing.T) {
	t.Parallel()
	// Raw bytes past MaxBytes, shown bytes within it: shown whole, no file.
	out := []byte(strings.Repeat("\x1b[32m#\x1b[0m", 100) + "\r100%\n")
	s, sp := runCapture(out, truncate.PreviewOptions{MaxLines: 10, MaxBytes: 100, Clean: true}, 0, []int{10})
	if s.Truncated || s.Head != "100%\n" || sp != nil {
		t.Fatalf("%+v spool %v", s, sp != nil)
	}
}

type failSpool struct{ memSpool }

func (f *failSpool) Write(p []byte) (int, error) { return 0, errors.New("boom") }

func TestCaptureSpoolFailures(t *testing.T) {
	t.Parallel()
	out := bytes.Repeat([]byte("line\n"), 100)
	opt := truncate.PreviewOptions{MaxLines: 4, MaxBytes: 1000}
	c := newCapture(opt, "stdout", func(string) (SpoolFile, error) { return nil, errors.New("no room") })
	c.write(out)
	s := c.finish()
	if !s.Truncated || s.Spool != nil || !strings.Contains(s.SpoolError, "no room") || s.Head != "line\nline\n" {
		t.Fatalf("open failure: %+v", s)
	}
	c = newCapture(opt, "stdout", func(string) (SpoolFile, error) { return &failSpool{}, nil })
	c.write(out[:100])
	c.write(out[100:])
	s = c.finish()
	if !s.Truncated || s.Spool == nil || !strings.Contains(s.SpoolError, "boom") || s.Tail != "line\nline\n" {
		t.Fatalf("write failure: %+v", s)
	}
	c = newCapture(opt, "stdout", nil) // no spooling asked
	c.write(out)
	if s = c.finish(); !s.Truncated || s.Spool != nil || s.SpoolError != "" {
		t.Fatalf("no spool: %+v", s)
	}
}

func FuzzCapture(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), 2, 4, 3, 1)
	f.Add(bytes.Repeat([]byte("héllo wörld\n"), 100), 10, 60, 100, 7)
	f.Add(append(bytes.Repeat([]byte("x"), 500), "\nend"...), 3, 50, 64, 33)
	f.Add([]byte("日本語\n\n\nno newline"), 1, 10, 5, 2)
	f.Fuzz(func(t *testing.T, out []byte, maxLines, maxBytes, keep, chunk int) {
		opt := truncate.PreviewOptions{MaxLines: abs(maxLines) % 500, MaxBytes: abs(maxBytes) % 5000}
		checkCapture(t, out, opt, 1+abs(keep)%2000, []int{1 + abs(chunk)%300, 1 + abs(chunk)%17})
	})
}

// FuzzCaptureFollow: whatever the output and its chunks, a scanner that
// reads on from the spool file finds what one handed each chunk finds (a
// fuzzer of its own: the spool files make it slower than FuzzCapture).
func FuzzCaptureFollow(f *testing.F) {
	f.Add([]byte("a\nerror: b\nc\n"), 2, 4, 3, 1)
	f.Add(bytes.Repeat([]byte("héllo wörld\nTraceback (most recent call last):\n  File \"x.py\"\nValueError: x\n"), 100), 10, 60, 100, 7)
	f.Fuzz(func(t *testing.T, out []byte, maxLines, maxBytes, keep, chunk int) {
		opt := truncate.PreviewOptions{MaxLines: abs(maxLines) % 500, MaxBytes: abs(maxBytes) % 5000, Clean: chunk%2 == 0, MaxLineChars: abs(keep) % 300}
		checkFollow(t, t.TempDir(), out, opt, 1+abs(keep)%2000, []int{1 + abs(chunk)%3000, 1 + abs(chunk)%17})
	})
}

func abs(n int) int {
	if n < 0 {
		if n = -n; n < 0 {
			return 0
		}
	}
	return n
}

type discardSpool struct{ memSpool }

func (d *discardSpool) Write(p []byte) (int, error) { return len(p), nil }

// BenchmarkCaptureWrite is the per-byte cost of capture alone, without the
// pipe or the spool's file: what the reader adds to each chunk.
func BenchmarkCaptureWrite(b *testing.B) {
	chunk := bytes.Repeat([]byte("some output line of a build tool, héllo\n"), 128<<10/40)
	opt := truncate.PreviewOptions{MaxLines: 2000, MaxBytes: 51200, MaxLineChars: 2000, Clean: true}
	b.SetBytes(int64(len(chunk)))
	c := newCapture(opt, "stdout", func(string) (SpoolFile, error) { return &discardSpool{}, nil })
	for b.Loop() {
		c.write(chunk)
	}
}

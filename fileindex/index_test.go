package fileindex

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// reference is the naive answer: the file split into lines.
type reference struct {
	size   int64
	starts []int64 // starts[i] is where line i+1 starts; starts[lines] == size
}

func newReference(b []byte) reference {
	// Each '\n' but a last one starts a line; a trailing '\n' (or
	// nothing) starts none. (bytes.SplitAfter made a slice a line: a
	// tenth of TestIndexLongLines' time under -race.)
	r := reference{size: int64(len(b)), starts: make([]int64, 0, bytes.Count(b, []byte{'\n'})+2)}
	r.starts = append(r.starts, 0)
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 || off+i+1 == len(b) {
			break
		}
		off += i + 1
		r.starts = append(r.starts, int64(off))
	}
	if len(b) == 0 {
		r.starts = r.starts[:0]
	}
	r.starts = append(r.starts, int64(len(b)))
	return r
}

func (r reference) lines() int64 { return int64(len(r.starts) - 1) }

// lineAt is the line holding off and its start.
func (r reference) lineAt(off int64) (int64, int64) {
	i := sort.Search(len(r.starts), func(i int) bool { return r.starts[i] > off }) - 1
	return int64(i) + 1, r.starts[i]
}

// check compares f's answers with the reference: every line start and every
// offset when every is set, else a sample of them (see sampleOffsets).
func check(t testing.TB, f *File, content []byte, every bool) {
	t.Helper()
	ref := newReference(content)
	if got := f.Size(); got != ref.size {
		t.Fatalf("Size = %d, want %d", got, ref.size)
	}
	if got := f.Lines(); got != ref.lines() {
		t.Fatalf("Lines = %d, want %d", got, ref.lines())
	}
	step := int64(1)
	if !every {
		step = max(1, ref.lines()/samples)
	}
	for n := int64(1); n <= ref.lines()+1; n += step {
		checkLineStart(t, f, ref, n)
	}
	checkLineStart(t, f, ref, ref.lines()+1) // the end, which step may pass
	for _, n := range []int64{0, -1, ref.lines() + 2} {
		if _, err := f.LineStart(n); !errors.Is(err, ErrOutOfRange) {
			t.Fatalf("LineStart(%d) error = %v, want ErrOutOfRange", n, err)
		}
	}
	var offs []int64
	if every {
		for off := int64(0); off < ref.size; off++ {
			offs = append(offs, off)
		}
	} else {
		offs = sampleOffsets(ref, step, spacingOf(f))
	}
	for _, off := range offs {
		if off < 0 || off >= ref.size {
			continue
		}
		wantN, wantStart := ref.lineAt(off)
		n, start, err := f.LineAt(off)
		if err != nil || n != wantN || start != wantStart {
			t.Fatalf("LineAt(%d) = %d, %d, %v; want %d, %d", off, n, start, err, wantN, wantStart)
		}
	}
	for _, off := range []int64{-1, ref.size, ref.size + 10} {
		if _, _, err := f.LineAt(off); !errors.Is(err, ErrOutOfRange) {
			t.Fatalf("LineAt(%d) error = %v, want ErrOutOfRange", off, err)
		}
	}
}

func checkLineStart(t testing.TB, f *File, ref reference, n int64) {
	t.Helper()
	got, err := f.LineStart(n)
	if err != nil || got != ref.starts[n-1] {
		t.Fatalf("LineStart(%d) = %d, %v; want %d", n, got, err, ref.starts[n-1])
	}
}

// samples is how many lines, offsets and checkpoints check visits when
// not every: 250 in the quick run (1000 took most of the package's time
// under -race: a lookup reads up to a spacing, 64 KiB by default), 1000
// with TOOLD_LONG=1.
var samples = int64(testenv.Size(250, 1000))

// sampleOffsets are the offsets check looks up when not every. A lookup's
// arithmetic turns at line starts (the '\n' before, the byte after) and at
// checkpoints (a block's first byte, the last of the one before): so the
// offsets are the sampled lines' starts and their neighbours, the
// checkpoints' and their neighbours (every one of the first and last four
// and a sample between), the first and last bytes, and a spread between.
func sampleOffsets(ref reference, step, spacing int64) []int64 {
	var offs []int64
	for i := int64(0); i < ref.lines(); i += step {
		s := ref.starts[i]
		offs = append(offs, s, s+1, s-1)
	}
	for _, i := range []int64{ref.lines() - 1, ref.lines() - 2} { // the last lines, which step may pass
		if i >= 0 {
			s := ref.starts[i]
			offs = append(offs, s, s+1, s-1)
		}
	}
	cps := ref.size / spacing
	cpStep := max(1, cps/samples)
	for k := int64(1); k <= cps; k++ {
		if k <= 4 || k > cps-4 || k%cpStep == 0 {
			offs = append(offs, k*spacing-1, k*spacing, k*spacing+1)
		}
	}
	for off := int64(0); off < ref.size; off += ref.size/samples + 1 {
		offs = append(offs, off)
	}
	return append(offs, ref.size-1)
}

// spacingOf is the spacing of f's index.
func spacingOf(f *File) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.idx.spacing
}

func newCache(t testing.TB, opts Options) *Cache {
	t.Helper()
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// open opens and indexes path.
func open(t testing.TB, c *Cache, path string) *File {
	t.Helper()
	f, err := c.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := f.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	return f
}

func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "fileindex", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestIndexMatchesReference(t *testing.T) {
	crossing := strings.Repeat("0123456789\nab\n\n"+strings.Repeat("x", 70)+"\n", 20)
	cases := []struct {
		name    string
		content []byte
	}{
		{"empty", nil},
		{"newline only", []byte("\n")},
		{"newlines only", []byte("\n\n\n\n\n\n\n\n\n")},
		{"one line", []byte("abc\n")},
		{"no trailing newline", []byte("abc\ndef")},
		{"single char", []byte("x")},
		{"crlf", []byte("a\r\nb\r\n\r\nc")},
		{"multibyte", []byte("héllo\n日本語\n🙂\n\xff\xfe\n")},
		{"crossing checkpoints", []byte(crossing)},
		{"crossing checkpoints, no final newline", []byte(crossing + "tail")},
		{"testdata crlf", testdata(t, "crlf.txt")},
		{"testdata utf8", testdata(t, "utf8.txt")},
		{"testdata blank", testdata(t, "blank.txt")},
	}
	for _, spacing := range []int64{1, 2, 7, 64, 0} {
		c := newCache(t, Options{Spacing: spacing, noWatch: true})
		dir := t.TempDir() // see TestIndexLongLines
		for i, tc := range cases {
			t.Run(tc.name+"/spacing="+itoa(spacing), func(t *testing.T) {
				path := filepath.Join(dir, itoa(int64(i)))
				testenv.WriteFile(t, path, tc.content)
				check(t, open(t, c, path), tc.content, true)
			})
		}
	}
}

// TestIndexLongLines indexes lines of 5 MB (TOOLD_LONG=1; 1 MB in the
// quick run, still four of index.go's read buffers and many times the
// spacings) and 5 MB (1 MB) of empty lines.
func TestIndexLongLines(t *testing.T) {
	// 640 KiB in the quick run (a line over two and a half reads of
	// readBufSize, 256 KiB: the index's entries carried across reads as a
	// MB's four; 1 MiB cost 1.6 CPU-s under -race), 5 MiB with TOOLD_LONG=1.
	size := testenv.Size(640<<10, 5<<20)
	long := bytes.Repeat([]byte("y"), size)
	cases := []struct {
		name    string
		content []byte
	}{
		{"MBs single line", long},
		{"MBs single line with newline", append(append([]byte{}, long...), '\n')},
		{"short, MBs, short", []byte("a\nb\n" + string(long) + "\nc\nd")},
		{"MBs of newlines", bytes.Repeat([]byte("\n"), size)},
	}
	for _, spacing := range []int64{64, 4096, 0} {
		c := newCache(t, Options{Spacing: spacing, noWatch: true})
		// The cases' files live as long as the cache: a case's file
		// removed with its own TempDir let the next case's file take its
		// inode, which the cache, watching nothing here, took for the old
		// file grown (its tail bytes the same): "Lines = 3, want 5" for
		// the short, MBs, short case once in a loaded run.
		dir := t.TempDir()
		for i, tc := range cases {
			t.Run(tc.name+"/spacing="+itoa(spacing), func(t *testing.T) {
				path := filepath.Join(dir, itoa(int64(i)))
				testenv.WriteFile(t, path, tc.content)
				check(t, open(t, c, path), tc.content, false)
			})
		}
	}
}

func TestNthNewline(t *testing.T) {
	b := []byte(strings.Repeat("ab\n", 5000))
	for _, n := range []int64{1, 2, 1365, 1366, 1367, 4999, 5000} {
		if got, want := nthNewline(b, n), int(3*n-1); got != want {
			t.Errorf("nthNewline(%d) = %d, want %d", n, got, want)
		}
	}
	if got := nthNewline(b, 5001); got != -1 {
		t.Errorf("nthNewline past the end = %d, want -1", got)
	}
}

// FuzzIndex writes a prefix of data, indexes it, appends the rest (which
// extends the index) and compares both states with the reference.
func FuzzIndex(f *testing.F) {
	f.Add([]byte("a\nbb\nccc\n"), uint8(2), uint16(4))
	f.Add([]byte("\n\n\r\n\xff\n"), uint8(0), uint16(0))
	f.Add([]byte("no newline at all"), uint8(6), uint16(9))
	f.Add([]byte(strings.Repeat("line\n", 100)), uint8(63), uint16(250))
	f.Fuzz(func(t *testing.T, data []byte, spacing uint8, cut uint16) {
		c := newCache(t, Options{Spacing: int64(spacing%67) + 1, noWatch: true})
		k := 0
		if len(data) > 0 {
			k = int(cut) % (len(data) + 1)
		}
		path := filepath.Join(t.TempDir(), "f")
		testenv.WriteFile(t, path, data[:k])
		check(t, open(t, c, path), data[:k], true)

		w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data[k:]); err != nil {
			t.Fatal(err)
		}
		w.Close()
		check(t, open(t, c, path), data, true)
		st := c.Stats()
		if k < len(data) && (st.Extends != 1 || st.Misses != 1) {
			t.Fatalf("append did not extend: %+v", st)
		}
	})
}

func itoa(n int64) string {
	if n == 0 {
		return "default"
	}
	return strconv.FormatInt(n, 10)
}

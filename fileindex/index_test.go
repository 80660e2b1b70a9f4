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
	parts := bytes.SplitAfter(b, []byte{'\n'})
	if len(parts[len(parts)-1]) == 0 {
		parts = parts[:len(parts)-1] // a trailing '\n' (or nothing) starts no line
	}
	r := reference{size: int64(len(b))}
	var off int64
	for _, p := range parts {
		r.starts = append(r.starts, off)
		off += int64(len(p))
	}
	r.starts = append(r.starts, off)
	return r
}

func (r reference) lines() int64 { return int64(len(r.starts) - 1) }

// lineAt is the line holding off and its start.
func (r reference) lineAt(off int64) (int64, int64) {
	i := sort.Search(len(r.starts), func(i int) bool { return r.starts[i] > off }) - 1
	return int64(i) + 1, r.starts[i]
}

// check compares f's answers with the reference: every line start and every
// offset when every is set, else a sample of them.
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
		step = max(1, ref.lines()/1000)
	}
	for n := int64(1); n <= ref.lines()+1; n += step {
		got, err := f.LineStart(n)
		if err != nil || got != ref.starts[n-1] {
			t.Fatalf("LineStart(%d) = %d, %v; want %d", n, got, err, ref.starts[n-1])
		}
	}
	for _, n := range []int64{0, -1, ref.lines() + 2} {
		if _, err := f.LineStart(n); !errors.Is(err, ErrOutOfRange) {
			t.Fatalf("LineStart(%d) error = %v, want ErrOutOfRange", n, err)
		}
	}
	offs := []int64{}
	if every {
		for off := int64(0); off < ref.size; off++ {
			offs = append(offs, off)
		}
	} else {
		for i := int64(0); i < ref.lines(); i += step {
			s := ref.starts[i]
			offs = append(offs, s, s+1, max(0, s-1))
		}
		for off := int64(0); off < ref.size; off += ref.size/1000 + 1 {
			offs = append(offs, off)
		}
		offs = append(offs, max(0, ref.size-1))
	}
	for _, off := range offs {
		if off >= ref.size {
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

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
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
				writeFile(t, path, tc.content)
				check(t, open(t, c, path), tc.content, true)
			})
		}
	}
}

// TestIndexLongLines indexes lines of 5 MB (TOOLD_LONG=1; 1 MB in the
// quick run, still four of index.go's read buffers and many times the
// spacings) and 5 MB (1 MB) of empty lines.
func TestIndexLongLines(t *testing.T) {
	size := testenv.Size(1<<20, 5<<20)
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
				writeFile(t, path, tc.content)
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
		writeFile(t, path, data[:k])
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

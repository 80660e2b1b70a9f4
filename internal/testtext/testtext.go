package testtext

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// CountLines counts lines as the protocol does: a last line without '\n'
// counts, a trailing '\n' adds none, an empty text has none.
func CountLines(b []byte) int64 {
	n := int64(bytes.Count(b, []byte{'\n'}))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// Lines returns lines from..to (1-based, inclusive) of b, with their endings.
func Lines(b []byte, from, to int64) []byte {
	var out []byte
	for line := int64(1); len(b) > 0; line++ {
		i := bytes.IndexByte(b, '\n') + 1
		if i == 0 {
			i = len(b)
		}
		if line >= from && line <= to {
			out = append(out, b[:i]...)
		}
		b = b[i:]
	}
	return out
}

// BenchFile returns a text file of TOOLD_BENCH_SIZE bytes (default 64 MiB)
// of lines of 80 to 120 bytes, some with multi-byte characters. It is made
// once and kept in os.TempDir()/toold-bench/SIZE.txt, for later runs and for
// comparing with `wc -l` on the same file. The directory is one of its own:
// watching a directory costs the kernel a walk of its cached children (some
// 15 ms for a busy /tmp), which is not what the benchmarks measure.
func BenchFile(tb testing.TB) (path string, size int64) {
	tb.Helper()
	size = 64 << 20
	if s := os.Getenv("TOOLD_BENCH_SIZE"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			tb.Fatalf("TOOLD_BENCH_SIZE=%q: want a positive byte count", s)
		}
		size = n
	}
	dir := filepath.Join(os.TempDir(), "toold-bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	path = filepath.Join(dir, fmt.Sprintf("%d.txt", size))
	if fi, err := os.Stat(path); err == nil && fi.Size() == size {
		return path, size
	}
	tmp, err := os.CreateTemp(dir, "*.tmp")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	words := []string{"alpha", "beta", "gamma", "delta", "héllo", "wörld", "日本", "theta", "iota", "kappa"}
	rng := rand.New(rand.NewPCG(1, 2))
	line := make([]byte, 0, 128)
	for n, written := 1, int64(0); written < size; n++ {
		line = strconv.AppendInt(line[:0], int64(n), 10)
		for len(line) < 80+rng.IntN(40) {
			line = append(line, ' ')
			line = append(line, words[rng.IntN(len(words))]...)
		}
		line = append(line, '\n')
		if rem := size - written; int64(len(line)) > rem {
			line = line[:rem]
		}
		w.Write(line)
		written += int64(len(line))
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		tb.Fatal(err)
	}
	return path, size
}

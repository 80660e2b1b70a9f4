package fileindex

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// benchFile returns a generated text file of TOOLD_BENCH_SIZE bytes (default
// 64 MiB) of ~100-byte lines, made once and kept in
// os.TempDir()/toold-fileindex-bench/SIZE.txt for later runs (and for
// comparing with `wc -l` on the same file).
func benchFile(b *testing.B) (string, int64) {
	b.Helper()
	size := int64(64 << 20)
	if s := os.Getenv("TOOLD_BENCH_SIZE"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			b.Fatalf("TOOLD_BENCH_SIZE=%q: want a positive byte count", s)
		}
		size = n
	}
	// A directory of its own: watching a directory costs the kernel a walk
	// of its cached children, some 15 ms for a busy /tmp, which is not what
	// this measures.
	dir := filepath.Join(os.TempDir(), "toold-fileindex-bench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%d.txt", size))
	if fi, err := os.Stat(path); err == nil && fi.Size() == size {
		return path, size
	}
	tmp, err := os.CreateTemp(dir, "*.tmp")
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"}
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
		b.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		b.Fatal(err)
	}
	return path, size
}

// BenchmarkBuild is the first read of a file: Open and a full index build,
// the file in page cache. Compare its MB/s with `wc -l` on the same file.
func BenchmarkBuild(b *testing.B) {
	path, size := benchFile(b)
	c, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		c.Invalidate(path)
		f, err := c.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Index(ctx); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	if st := c.Stats(); st.Hits != 0 {
		b.Fatalf("a build was a hit: %+v", st)
	}
}

// BenchmarkLineStartDeep is a read window in the middle of the file once it
// is indexed: Open (a cache hit), LineStart of the middle line, and a 50 KiB
// ReadAt.
func BenchmarkLineStartDeep(b *testing.B) {
	path, _ := benchFile(b)
	c, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	f, err := c.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	mid := f.Lines() / 2
	f.Close()
	buf := make([]byte, 50<<10)
	b.ReportAllocs()
	for b.Loop() {
		f, err := c.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Index(ctx); err != nil {
			b.Fatal(err)
		}
		start, err := f.LineStart(mid)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.ReadAt(buf[:min(int64(len(buf)), f.Size()-start)], start); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	if st := c.Stats(); st.Misses != 1 {
		b.Fatalf("rebuilt during the benchmark: %+v", st)
	}
}

// BenchmarkLineAtDeep is readBytes in the middle of an indexed file.
func BenchmarkLineAtDeep(b *testing.B) {
	path, size := benchFile(b)
	c, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	f, err := c.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := f.Index(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := f.LineAt(size/2 + 12345); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildBuffer builds with pread buffers of several sizes, to choose
// readBufSize.
func BenchmarkBuildBuffer(b *testing.B) {
	path, size := benchFile(b)
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	id := statID(fi)
	for _, n := range []int{64 << 10, 256 << 10, 1 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("%dKiB", n>>10), func(b *testing.B) {
			buf := make([]byte, n)
			b.SetBytes(size)
			for b.Loop() {
				if _, err := build(context.Background(), f, id, DefaultSpacing, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

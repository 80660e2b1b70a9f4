package fileindex

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/toold/toold/internal/testtext"
)

// BenchmarkBuild is the first read of a file: Open and a full index build,
// the file in page cache. Compare its MB/s with `wc -l` on the same file.
func BenchmarkBuild(b *testing.B) {
	path, size := testtext.BenchFile(b)
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
	path, _ := testtext.BenchFile(b)
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
	path, size := testtext.BenchFile(b)
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
	path, size := testtext.BenchFile(b)
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

// BenchmarkBuildOneCore is BenchmarkBuild with the parallel build off:
// run the two interleaved (-count) to see what the second core gives.
func BenchmarkBuildOneCore(b *testing.B) {
	old := ParallelMin
	ParallelMin = 1 << 62
	defer func() { ParallelMin = old }()
	BenchmarkBuild(b)
}

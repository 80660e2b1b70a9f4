package search

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// goroot is the benchmarks' real tree: the Go toolchain's own source.
func goroot(b *testing.B) string {
	dir := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(dir); err != nil {
		b.Skip("no GOROOT/src:", err)
	}
	return dir
}

func benchGrep(b *testing.B, q Query, opt GrepOptions) {
	dir := goroot(b)
	m, err := Compile(q)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Grep(context.Background(), m, dir, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGrepLiteral(b *testing.B) {
	benchGrep(b, Query{Pattern: "func main", Literal: true}, GrepOptions{})
}

func BenchmarkGrepRegexp(b *testing.B) {
	benchGrep(b, Query{Pattern: `func \w+Reader\(`}, GrepOptions{})
}

func BenchmarkGrepIgnoreCase(b *testing.B) {
	benchGrep(b, Query{Pattern: "FUNC MAIN", IgnoreCase: true}, GrepOptions{})
}

func BenchmarkGrepNoLiteral(b *testing.B) {
	benchGrep(b, Query{Pattern: `\d{9}`}, GrepOptions{})
}

func BenchmarkGrepLimit(b *testing.B) {
	benchGrep(b, Query{Pattern: "err"}, GrepOptions{Limit: 100, Context: 2, MaxLineChars: 500, MaxBytes: 51200})
}

func BenchmarkFind(b *testing.B) {
	dir := goroot(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Find(context.Background(), dir, FindOptions{Pattern: "*.go"}); err != nil {
			b.Fatal(err)
		}
	}
}

var wide struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain removes the benchmarks' wide directory, shared by them.
func TestMain(m *testing.M) {
	code := m.Run()
	if wide.dir != "" {
		os.RemoveAll(wide.dir)
	}
	os.Exit(code)
}

// wideDir is a directory of 100,000 small files, made once per run.
func wideDir(b *testing.B) string {
	wide.once.Do(func() {
		wide.dir, wide.err = os.MkdirTemp("", "toold-wide-")
		for i := 0; i < 100000 && wide.err == nil; i++ {
			body := []byte("line one\nline two " + strconv.Itoa(i) + "\n")
			wide.err = os.WriteFile(filepath.Join(wide.dir, "f"+strconv.Itoa(i)+".txt"), body, 0o644)
		}
	})
	if wide.err != nil {
		b.Fatal(wide.err)
	}
	return wide.dir
}

// peakHeap samples the live heap while f runs and reports its peak, so
// that a benchmark shows memory stays bounded however large the tree.
func peakHeap(b *testing.B, f func()) {
	done := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var top uint64
		var ms runtime.MemStats
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			top = max(top, ms.HeapInuse)
			select {
			case <-done:
				peak <- top
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	b.ReportMetric(float64(<-peak)/(1<<20), "peak-heap-MiB")
}

// BenchmarkFindWide lists a directory of 100,000 files.
func BenchmarkFindWide(b *testing.B) {
	dir := wideDir(b)
	b.ReportAllocs()
	b.ResetTimer()
	peakHeap(b, func() {
		for b.Loop() {
			if _, err := Find(context.Background(), dir, FindOptions{Limit: 1000}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGrepWide greps a directory of 100,000 files, every one matching.
func BenchmarkGrepWide(b *testing.B) {
	dir := wideDir(b)
	m, err := Compile(Query{Pattern: "two"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	peakHeap(b, func() {
		for b.Loop() {
			res, err := Grep(context.Background(), m, dir, GrepOptions{Limit: 2000, MaxBytes: 51200, MaxLineChars: 500})
			if err != nil || res.LimitReached == LimitNone {
				b.Fatal(err, res.LimitReached)
			}
		}
	})
}

// BenchmarkGrepWideAll counts every match of a directory of 100,000 files.
func BenchmarkGrepWideAll(b *testing.B) {
	dir := wideDir(b)
	m, err := Compile(Query{Pattern: "one"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	peakHeap(b, func() {
		for b.Loop() {
			if _, err := Grep(context.Background(), m, dir, GrepOptions{Limit: 100}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

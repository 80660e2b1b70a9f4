package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
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

// madeDir is a directory the tests or benchmarks make once per run and
// share.
type madeDir struct {
	once sync.Once
	dir  string
	err  error
}

// wide is a directory of 100,000 small files; deep a tree of as many, 100
// to a directory, as bench/search.sh generates.
var wide, deep madeDir

// TestMain removes the directories made once a run (the benchmarks',
// sharedTree's).
func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range []*madeDir{&wide, &deep, &shared} {
		if d.dir != "" {
			os.RemoveAll(d.dir)
		}
	}
	testenv.Exit(code)
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

// deepDir is a tree of 100,000 small files, 100 to a directory and 100
// directories to a parent, made once per run; TOOLD_BENCH_TREE names one
// made before (bench/search.sh keeps its own).
func deepDir(b *testing.B) string {
	if dir := os.Getenv("TOOLD_BENCH_TREE"); dir != "" {
		return dir
	}
	deep.once.Do(func() {
		deep.dir, deep.err = os.MkdirTemp("", "toold-deep-")
		for i := 0; i < 100000 && deep.err == nil; i++ {
			dir := filepath.Join(deep.dir, fmt.Sprintf("d%03d", i/10000), fmt.Sprintf("e%03d", i/100%100))
			if i%100 == 0 {
				deep.err = os.MkdirAll(dir, 0o755)
			}
			if deep.err == nil {
				body := fmt.Sprintf("package p%d\n\nfunc F%d() int { return %d }\n", i, i, i*7)
				deep.err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.go", i)), []byte(body), 0o644)
			}
		}
	})
	if deep.err != nil {
		b.Fatal(deep.err)
	}
	return deep.dir
}

// BenchmarkGrepDeep greps a tree of 100,000 small files for a literal none
// holds: the cost of the walk and of opening and reading each file.
func BenchmarkGrepDeep(b *testing.B) {
	dir := deepDir(b)
	m, err := Compile(Query{Pattern: "func main", Literal: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	peakHeap(b, func() {
		for b.Loop() {
			res, err := Grep(context.Background(), m, dir, GrepOptions{Limit: 2000})
			if err != nil || res.TotalMatches != 0 {
				b.Fatal(err, res.TotalMatches)
			}
		}
	})
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

package search

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
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

// BenchmarkFindWide lists a directory of 100,000 files.
func BenchmarkFindWide(b *testing.B) {
	dir := b.TempDir()
	for i := range 100000 {
		if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)+".txt"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Find(context.Background(), dir, FindOptions{Limit: 1000}); err != nil {
			b.Fatal(err)
		}
	}
}

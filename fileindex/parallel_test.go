package fileindex

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestParallelBuild: counting ranges on several goroutines and stitching
// gives the index one pass gives, whatever the split, spacing and content,
// and the cache serves lines right from it.
func TestParallelBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var mixed []byte
	// 1.2 MB in the quick run, 3 MB with TOOLD_LONG=1: either way a range
	// of two or three workers spans several reads of readBufSize.
	for len(mixed) < testenv.Size(1200<<10, 3<<20) {
		mixed = append(mixed, bytes.Repeat([]byte{'x'}, rng.IntN(300))...)
		mixed = append(mixed, '\n')
	}
	contents := map[string][]byte{
		"mixed":            mixed,
		"no final newline": append(append([]byte{}, mixed...), "tail"...),
		// Ranges of newlines only and of no newline at all: 512 KiB in the
		// quick run (what a range holds, not how many reads, is what they
		// are for: mixed spans several reads), 1 MiB with TOOLD_LONG=1.
		"newlines": bytes.Repeat([]byte{'\n'}, testenv.Size(512<<10, 1<<20)+3),
		"one line": bytes.Repeat([]byte{'y'}, testenv.Size(512<<10, 1<<20)),
		"tiny":     []byte("a\nb"),
	}
	ctx := context.Background()
	// One worker (the whole range) and three (ranges that split unevenly,
	// the last one short) in the quick run; two and four as well with
	// TOOLD_LONG=1 (each a build under -race of every content and spacing).
	workers := testenv.Size([]int{1, 3}, []int{1, 2, 3, 4})
	for name, data := range contents {
		r := bytes.NewReader(data)
		id := fileID{size: int64(len(data))}
		for _, spacing := range []int64{7, 4096, 64 << 10} {
			want, err := build(ctx, r, id, spacing, make([]byte, readBufSize))
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range workers {
				got, err := buildParallel(ctx, r, id, spacing, make([]byte, readBufSize), n)
				if err != nil {
					t.Fatal(err)
				}
				if !sameIndex(got, want) {
					t.Errorf("%s, spacing %d, %d workers: %+v, want %+v", name, spacing, n, brief(got), brief(want))
				}
			}
		}
	}

	old := ParallelMin
	ParallelMin = 1
	t.Cleanup(func() { ParallelMin = old })
	c := newCache(t, Options{Spacing: 4096, noWatch: true})
	path := filepath.Join(t.TempDir(), "f")
	testenv.WriteFile(t, path, mixed)
	check(t, open(t, c, path), mixed, false)
}

// sameIndex is reflect.DeepEqual of two indexes, cheaper: DeepEqual
// walked the 170,000 checkpoints of spacing 7 by reflection, a third of
// the test's time under -race.
func sameIndex(a, b *index) bool {
	x, y := *a, *b
	x.cp, y.cp = nil, nil
	return reflect.DeepEqual(x, y) && slices.Equal(a.cp, b.cp)
}

// brief is an index without its checkpoints, for messages.
func brief(x *index) index {
	y := *x
	y.cp = y.cp[:min(len(y.cp), 4)]
	return y
}

// TestParallelCancel: cancelling a parallel build ends it with the
// context's error.
func TestParallelCancel(t *testing.T) {
	data := bytes.Repeat([]byte("line\n"), 1<<20)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := buildParallel(ctx, bytes.NewReader(data), fileID{size: int64(len(data))}, 4096, make([]byte, readBufSize), 2)
	if err == nil {
		t.Fatal("a cancelled build succeeded")
	}
}

// TestFeed: a build from scratch feeds every byte in order (through its
// pipeline, the buffers going round); a cached index feeds nothing.
func TestFeed(t *testing.T) {
	// 2.2 MB in the quick run (eight reads of readBufSize: each of the
	// pipeline's three buffers goes round twice or more), 4.4 MB with
	// TOOLD_LONG=1.
	data := bytes.Repeat([]byte("0123456789abcdef line\n"), testenv.Size(100000, 200000))
	c := newCache(t, Options{noWatch: true})
	path := filepath.Join(t.TempDir(), "f")
	testenv.WriteFile(t, path, data)
	var got bytes.Buffer
	fd := &Feed{W: &got}
	f, err := c.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Index(WithFeed(context.Background(), fd)); err != nil {
		t.Fatal(err)
	}
	if !fd.Fed || !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("fed %v, %d bytes of %d", fd.Fed, got.Len(), len(data))
	}
	check(t, f, data, false)
	fd2 := &Feed{W: &got}
	f2, err := c.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	if err := f2.Index(WithFeed(context.Background(), fd2)); err != nil || fd2.Fed {
		t.Fatalf("a cached index fed: %v %v", fd2.Fed, err)
	}
}

// TestSameFile: a path still leading to the open file is the same file; one
// replaced by rename is not.
func TestSameFile(t *testing.T) {
	c := newCache(t, Options{noWatch: true})
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	testenv.WriteFile(t, path, []byte("a\n"))
	f := open(t, c, path)
	fi, err := os.Stat(path)
	if err != nil || !f.SameFile(fi) {
		t.Fatalf("the file itself: %v", err)
	}
	testenv.WriteFile(t, path+".new", []byte("b\n"))
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	if fi, _ = os.Stat(path); f.SameFile(fi) {
		t.Error("a replaced file is the same")
	}
}

// TestParallelProgress: a parallel build reports rising byte counts from
// its first range, and the whole size at its end.
func TestParallelProgress(t *testing.T) {
	data := bytes.Repeat([]byte("line of text\n"), 1<<20)
	var got [][2]int64
	ctx := WithProgress(context.Background(), func(done, total int64) { got = append(got, [2]int64{done, total}) })
	if _, err := buildParallel(ctx, bytes.NewReader(data), fileID{size: int64(len(data))}, 4096, make([]byte, readBufSize), 2); err != nil {
		t.Fatal(err)
	}
	n := int64(len(data))
	if len(got) < 2 || got[len(got)-1] != [2]int64{n, n} {
		t.Fatalf("reports %v", got)
	}
	for i, r := range got {
		if r[1] != n || r[0] > n || i > 0 && r[0] < got[i-1][0] {
			t.Fatalf("report %d: %v of %v", i, r, got)
		}
	}
}

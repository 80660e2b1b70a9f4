package fileindex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestBuildProgress: a build reports how far it has read, forward, ending at
// the file's size; a grown file's extension reports from where it resumes;
// a cached index reports nothing.
func TestBuildProgress(t *testing.T) {
	c := newCache(t, Options{})
	path := filepath.Join(t.TempDir(), "f")
	size := 3*readBufSize + 123
	testenv.WriteFile(t, path, []byte(strings.Repeat("y", size-1)+"\n"))

	index := func() [][2]int64 {
		t.Helper()
		var got [][2]int64
		ctx := WithProgress(context.Background(), func(done, total int64) { got = append(got, [2]int64{done, total}) })
		f, err := c.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Index(ctx); err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := index()
	if len(got) < 4 {
		t.Fatalf("reports %v, want one per block and the end", got)
	}
	for i, r := range got {
		if r[1] != int64(size) || (i > 0 && r[0] < got[i-1][0]) {
			t.Fatalf("reports %v: total must be %d, done must not go back", got, size)
		}
	}
	if got[0][0] != 0 || got[len(got)-1][0] != int64(size) {
		t.Fatalf("reports %v: want from 0 to %d", got, size)
	}
	if again := index(); len(again) != 0 {
		t.Fatalf("a cached index reported %v", again)
	}
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString("more\n")
	fh.Close()
	grown := index()
	if len(grown) == 0 || grown[0][0] == 0 || grown[len(grown)-1] != [2]int64{int64(size + 5), int64(size + 5)} {
		t.Fatalf("extension reported %v, want from past 0 to %d", grown, size+5)
	}
}

package fileindex

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/toold/toold/internal/testenv"
)

func appendFile(t *testing.T, path string, b []byte) {
	t.Helper()
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
}

// writeInPlace overwrites path from offset 0 without truncating it: same
// inode, same size when b is as long as the file.
func writeInPlace(t *testing.T, path string, b []byte) {
	t.Helper()
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteAt(b, 0); err != nil {
		t.Fatal(err)
	}
}

// bumpMtime moves path's mtime well away from its old one, as a write on a
// filesystem with coarse timestamps might not.
func bumpMtime(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	mt := fi.ModTime().Add(3 * time.Second)
	if err := os.Chtimes(path, mt, mt); err != nil {
		t.Fatal(err)
	}
}

func entryOf(c *Cache, path string) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byName[path]
}

// TestChangesAreSeen changes an indexed file in every way an editor, a
// logger or a shell does, and checks that the very next Open answers the new
// content, with the watcher on and off.
func TestChangesAreSeen(t *testing.T) {
	old := []byte(strings.Repeat("old line\n", 40) + "last old")
	cases := []struct {
		name    string
		change  func(t *testing.T, path string) []byte
		extends bool // the index must be extended, not rebuilt
	}{
		{"append", func(t *testing.T, path string) []byte {
			add := []byte(" continued\nnew line\nand another")
			appendFile(t, path, add)
			return append(append([]byte{}, old...), add...)
		}, true},
		{"append a newline only", func(t *testing.T, path string) []byte {
			appendFile(t, path, []byte("\n"))
			return append(append([]byte{}, old...), '\n')
		}, true},
		{"rewrite in place, same size", func(t *testing.T, path string) []byte {
			b := []byte(strings.Repeat("new\nline", 50)[:len(old)])
			writeInPlace(t, path, b)
			bumpMtime(t, path)
			return b
		}, false},
		{"rewrite, grown, tail changed", func(t *testing.T, path string) []byte {
			b := []byte(strings.Repeat("other\n", 100))
			writeInPlace(t, path, b)
			return b
		}, false},
		{"atomic save by rename", func(t *testing.T, path string) []byte {
			b := []byte("saved\nby\nrename\n")
			tmp := path + ".tmp"
			testenv.WriteFile(t, tmp, b)
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			return b
		}, false},
		{"atomic save by rename, same size", func(t *testing.T, path string) []byte {
			b := []byte(strings.Repeat("x\n", len(old)/2+1)[:len(old)])
			tmp := path + ".tmp"
			testenv.WriteFile(t, tmp, b)
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
			return b
		}, false},
		{"truncate", func(t *testing.T, path string) []byte {
			if err := os.Truncate(path, 18); err != nil {
				t.Fatal(err)
			}
			return old[:18]
		}, false},
		{"truncate to empty", func(t *testing.T, path string) []byte {
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
			return nil
		}, false},
		{"delete and recreate", func(t *testing.T, path string) []byte {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			b := []byte("recreated\n")
			testenv.WriteFile(t, path, b)
			return b
		}, false},
	}
	for _, watch := range []bool{true, false} {
		for _, tc := range cases {
			name := tc.name + "/watch"
			if !watch {
				name = tc.name + "/nowatch"
			}
			t.Run(name, func(t *testing.T) {
				c := newCache(t, Options{Spacing: 16, noWatch: !watch})
				path := filepath.Join(t.TempDir(), "f.txt")
				testenv.WriteFile(t, path, old)
				check(t, open(t, c, path), old, true)

				want := tc.change(t, path)
				check(t, open(t, c, path), want, true)
				st := c.Stats()
				if tc.extends && (st.Extends != 1 || st.Misses != 1 || st.Hits != 1) {
					t.Errorf("append rebuilt instead of extending: %+v", st)
				}
				if !tc.extends && (st.Extends != 0 || st.Misses != 2) {
					t.Errorf("change did not rebuild: %+v", st)
				}
				// And the index now cached is the new one.
				check(t, open(t, c, path), want, true)
			})
		}
	}
}

// TestWriteEventSameStat rewrites a file in place with the same size and, as
// a filesystem with coarse timestamps would show it, the same times: only
// the Write event tells, and the next Open must rebuild.
func TestWriteEventSameStat(t *testing.T) {
	c := newCache(t, Options{Spacing: 8})
	path := filepath.Join(t.TempDir(), "f.txt")
	old, next := []byte("aaaa\nbbbb\n"), []byte("a\nb\nc\nd\ne\n")
	testenv.WriteFile(t, path, old)
	check(t, open(t, c, path), old, true)

	writeInPlace(t, path, next)
	e := entryOf(c, path)
	testenv.WaitFor(t, 10*time.Second, "the Write event", e.suspect.Load)
	// Make the cached index's stat equal the new one.
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	e.build.Lock()
	stale := *e.idx
	stale.id = statID(fi)
	e.idx = &stale
	e.build.Unlock()

	check(t, open(t, c, path), next, true)
	if st := c.Stats(); st.Misses != 2 || st.Invalidations != 1 {
		t.Errorf("suspect entry not rebuilt: %+v", st)
	}
}

// TestGrowingLog pages through a file that keeps growing: every Open extends.
func TestGrowingLog(t *testing.T) {
	c := newCache(t, Options{Spacing: 64})
	path := filepath.Join(t.TempDir(), "log")
	var content []byte
	testenv.WriteFile(t, path, nil)
	for i := range 50 {
		line := []byte(strings.Repeat("entry ", i%7+1) + "\n")
		if i%3 == 2 {
			line = line[:len(line)-1] // a partial line, finished by the next write
		}
		appendFile(t, path, line)
		content = append(content, line...)
		// The quick run checks every offset of the last state only; before
		// it, check's sample, which for a file this small is every line
		// start, every checkpoint (and the bytes either side of each) and
		// one offset in five, so every 64-byte block many times: an
		// extension that kept a wrong checkpoint or counted a block wrong
		// still shows. TOOLD_LONG=1 checks every offset of every state.
		check(t, open(t, c, path), content, i == 49 || testenv.Long())
	}
	if st := c.Stats(); st.Misses != 1 || st.Extends != 49 {
		t.Errorf("growing log rebuilt: %+v", st)
	}
}

// TestOlderHandle indexes a File opened before the file grew, after a newer
// handle has extended the entry: it gets the prefix of the entry's index.
func TestOlderHandle(t *testing.T) {
	c := newCache(t, Options{Spacing: 8, noWatch: true})
	path := filepath.Join(t.TempDir(), "log")
	first := []byte("one\ntwo\nthree\nfo")
	testenv.WriteFile(t, path, first)
	older, err := c.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer older.Close()
	time.Sleep(10 * time.Millisecond) // a ctime the older stat is before
	appendFile(t, path, []byte("ur\nfive\nsix\n"))
	open(t, c, path)
	if err := older.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	check(t, older, first, true)
	if st := c.Stats(); st.Misses != 1 || st.Hits != 1 || st.Extends != 0 {
		t.Errorf("older handle rebuilt: %+v", st)
	}
	check(t, open(t, c, path), []byte("one\ntwo\nthree\nfour\nfive\nsix\n"), true)
}

func TestWatcherDropsEntries(t *testing.T) {
	c := newCache(t, Options{})
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	testenv.WriteFile(t, path, []byte("a\n"))
	open(t, c, path)
	if err := os.Rename(path, path+".moved"); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, "rename to drop the entry", func() bool { return c.Stats().Entries == 0 })
	if st := c.Stats(); st.Invalidations != 1 || st.IndexBytes != 0 {
		t.Errorf("after rename: %+v", st)
	}

	// A watched directory that goes away takes its entries with it; once
	// recreated, it is watched again.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	inSub := filepath.Join(sub, "g")
	testenv.WriteFile(t, inSub, []byte("b\n"))
	open(t, c, inSub)
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, "the directory's removal to drop the entry", func() bool { return c.Stats().Entries == 0 })
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, inSub, []byte("c\nd\n"))
	check(t, open(t, c, inSub), []byte("c\nd\n"), true)
	if !slices.Contains(c.watcher.WatchList(), sub) {
		t.Errorf("recreated directory not watched: %v", c.watcher.WatchList())
	}
	testenv.WriteFile(t, inSub+".new", []byte("x"))
	if err := os.Rename(inSub+".new", inSub); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, "the rename in the recreated directory", func() bool { return c.Stats().Entries == 0 })
}

func TestOverflowFlushes(t *testing.T) {
	c := newCache(t, Options{})
	dir := t.TempDir()
	// All written before the directory is watched: a late Create event would
	// drop an entry of its own.
	names := []string{"a", "b", "c"}
	for _, name := range names {
		testenv.WriteFile(t, filepath.Join(dir, name), []byte(name+"\n"))
	}
	for _, name := range names {
		open(t, c, filepath.Join(dir, name))
	}
	c.flush(fsnotify.ErrEventOverflow)
	if st := c.Stats(); st.Entries != 0 || st.Invalidations != 3 || st.IndexBytes != 0 {
		t.Errorf("after overflow: %+v", st)
	}
	c.syncWatches()
	if l := c.watcher.WatchList(); len(l) != 0 {
		t.Errorf("watches left after flush: %v", l)
	}
}

func TestWatchesFollowEntries(t *testing.T) {
	c := newCache(t, Options{})
	a, b := t.TempDir(), t.TempDir()
	paths := []string{filepath.Join(a, "1"), filepath.Join(a, "2"), filepath.Join(b, "3")}
	for _, p := range paths {
		testenv.WriteFile(t, p, []byte("x\n"))
	}
	for _, p := range paths {
		open(t, c, p)
	}
	watched := func() []string {
		l := c.watcher.WatchList()
		slices.Sort(l)
		return l
	}
	want := []string{a, b}
	slices.Sort(want)
	if got := watched(); !slices.Equal(got, want) {
		t.Fatalf("watching %v, want %v", got, want)
	}
	c.Invalidate(paths[0])
	if got := watched(); !slices.Equal(got, want) {
		t.Fatalf("after one of two entries in %s dropped: watching %v", a, got)
	}
	c.Invalidate(paths[1])
	if got := watched(); !slices.Equal(got, []string{b}) {
		t.Fatalf("after both entries in %s dropped: watching %v, want [%s]", a, got, b)
	}
	if st := c.Stats(); st.Entries != 1 || st.Invalidations != 2 {
		t.Errorf("after Invalidate: %+v", st)
	}
}

func TestLRUBounds(t *testing.T) {
	dir := t.TempDir()
	paths := make([]string, 4)
	for i := range paths {
		paths[i] = filepath.Join(dir, string(rune('a'+i)))
		testenv.WriteFile(t, paths[i], []byte(strings.Repeat("line\n", 200))) // 1000 bytes
	}

	t.Run("entries", func(t *testing.T) {
		c := newCache(t, Options{MaxEntries: 2, Spacing: 10})
		for _, p := range paths[:3] {
			open(t, c, p)
		}
		if st := c.Stats(); st.Entries != 2 || st.Evictions != 1 || st.Misses != 3 {
			t.Fatalf("%+v", st)
		}
		open(t, c, paths[0]) // evicted: built again
		open(t, c, paths[2]) // kept
		if st := c.Stats(); st.Misses != 4 || st.Hits != 1 {
			t.Fatalf("%+v", st)
		}
	})

	t.Run("bytes", func(t *testing.T) {
		one := newCache(t, Options{Spacing: 10})
		open(t, one, paths[0])
		size := one.Stats().IndexBytes // every file here costs the same
		if size <= indexOverhead {
			t.Fatalf("index of 100 checkpoints costs %d bytes", size)
		}
		c := newCache(t, Options{Spacing: 10, MaxIndexBytes: 2*size + size/2})
		for _, p := range paths {
			open(t, c, p)
			if st := c.Stats(); st.IndexBytes > 2*size+size/2 {
				t.Fatalf("over the bound: %+v", st)
			}
		}
		if st := c.Stats(); st.Entries != 2 || st.IndexBytes != 2*size || st.Evictions != 2 {
			t.Fatalf("%+v", st)
		}
		open(t, c, paths[3])
		if st := c.Stats(); st.Hits != 1 {
			t.Fatalf("most recent evicted: %+v", st)
		}
	})

	t.Run("one index over the bound", func(t *testing.T) {
		c := newCache(t, Options{Spacing: 10, MaxIndexBytes: 100})
		f := open(t, c, paths[0])
		check(t, f, []byte(strings.Repeat("line\n", 200)), true)
		if st := c.Stats(); st.Entries != 0 || st.IndexBytes != 0 {
			t.Fatalf("kept an index over the bound: %+v", st)
		}
	})
}

func TestInvalidate(t *testing.T) {
	c := newCache(t, Options{})
	path := filepath.Join(t.TempDir(), "spool")
	testenv.WriteFile(t, path, []byte("out\n"))
	open(t, c, path)
	c.Invalidate(path)
	c.Invalidate(path + ".unknown")
	if st := c.Stats(); st.Entries != 0 || st.Invalidations != 1 || st.IndexBytes != 0 {
		t.Fatalf("%+v", st)
	}
	open(t, c, path)
	if st := c.Stats(); st.Misses != 2 {
		t.Fatalf("%+v", st)
	}
}

func TestOpenErrors(t *testing.T) {
	c := newCache(t, Options{})
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	unreadable := filepath.Join(dir, "secret")
	testenv.WriteFile(t, unreadable, []byte("x"))
	if err := os.Chmod(unreadable, 0); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		path string
		want error
		skip bool
	}{
		{"directory", dir, ErrIsDir, false},
		{"missing", filepath.Join(dir, "missing"), fs.ErrNotExist, false},
		{"missing parent", filepath.Join(dir, "no", "such"), fs.ErrNotExist, false},
		{"fifo", fifo, ErrNotRegular, false},
		{"no permission", unreadable, fs.ErrPermission, os.Geteuid() == 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip {
				t.Skip("root reads anything")
			}
			f, err := c.Open(context.Background(), tc.path)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open error = %v, want %v", err, tc.want)
			}
			if f != nil {
				t.Fatal("File returned with an error")
			}
			var perr *fs.PathError
			if !errors.As(err, &perr) {
				t.Fatalf("error %v is not an *fs.PathError", err)
			}
		})
	}
}

func TestCancelledBuild(t *testing.T) {
	c := newCache(t, Options{})
	path := filepath.Join(t.TempDir(), "f")
	testenv.WriteFile(t, path, []byte(strings.Repeat("x\n", 1<<20)))
	f, err := c.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.Index(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Index error = %v, want context.Canceled", err)
	}
	if st := c.Stats(); st.Entries != 0 || st.IndexBytes != 0 {
		t.Fatalf("failed build left an entry: %+v", st)
	}
	if err := f.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f.Lines() != 1<<20 {
		t.Fatalf("Lines = %d", f.Lines())
	}
}

// TestLazyIndex: Open reads nothing; Lines indexes on demand.
func TestLazyIndex(t *testing.T) {
	c := newCache(t, Options{})
	path := filepath.Join(t.TempDir(), "f")
	testenv.WriteFile(t, path, []byte("a\nb"))
	f, err := c.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if st := c.Stats(); st.Entries != 0 || st.Misses != 0 {
		t.Fatalf("Open indexed: %+v", st)
	}
	if f.Size() != 3 || f.Path() != path {
		t.Fatalf("Size %d, Path %q", f.Size(), f.Path())
	}
	if f.Lines() != 2 {
		t.Fatalf("Lines = %d", f.Lines())
	}
	buf := make([]byte, 2)
	if n, err := f.ReadAt(buf, 1); n != 2 || err != nil || string(buf) != "\nb" {
		t.Fatalf("ReadAt = %d, %v, %q", n, err, buf)
	}
	if st := c.Stats(); st.Entries != 1 || st.Misses != 1 {
		t.Fatalf("%+v", st)
	}
}

// TestConcurrentOpens builds once for many concurrent Opens of one path.
func TestConcurrentOpens(t *testing.T) {
	c := newCache(t, Options{Spacing: 4096})
	path := filepath.Join(t.TempDir(), "f")
	content := []byte(strings.Repeat("some line of text\n", 1<<16))
	testenv.WriteFile(t, path, content)
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			f, err := c.Open(context.Background(), path)
			if err != nil {
				errs <- err
				return
			}
			defer f.Close()
			if err := f.Index(context.Background()); err != nil {
				errs <- err
				return
			}
			if start, err := f.LineStart(1<<15 + 1); err != nil || start != 18<<15 {
				errs <- errors.New("wrong LineStart")
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := c.Stats(); st.Misses != 1 || st.Hits != n-1 {
		t.Fatalf("built more than once: %+v", st)
	}
}

func TestCloseStopsWatcher(t *testing.T) {
	before := runtime.NumGoroutine()
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.watcher == nil {
		t.Skip("no inotify here")
	}
	path := filepath.Join(t.TempDir(), "f")
	testenv.WriteFile(t, path, []byte("x\n"))
	f, err := c.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Index(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	// The open File still works; the Cache refuses new Opens.
	if f.Lines() != 1 {
		t.Fatal("File broken by Close")
	}
	f.Close()
	if _, err := c.Open(context.Background(), path); !errors.Is(err, fs.ErrClosed) {
		t.Fatalf("Open after Close: %v", err)
	}
	testenv.WaitFor(t, 10*time.Second, "the watcher's goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

func TestNewRejectsNegative(t *testing.T) {
	for _, o := range []Options{{MaxEntries: -1}, {MaxIndexBytes: -1}, {Spacing: -1}, {Spacing: MaxSpacing + 1}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

// TestShrunkUnderFile: a File whose file was truncated after Index reports
// ErrChanged instead of wrong offsets.
func TestShrunkUnderFile(t *testing.T) {
	c := newCache(t, Options{Spacing: 4, noWatch: true})
	path := filepath.Join(t.TempDir(), "f")
	testenv.WriteFile(t, path, []byte("aaa\nbbb\nccc\nddd\n"))
	f := open(t, c, path)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	_, err := f.LineStart(3)
	var perr *fs.PathError
	if !errors.Is(err, ErrChanged) || !errors.As(err, &perr) {
		t.Fatalf("LineStart after truncation: %v", err)
	}
	if _, _, err := f.LineAt(9); !errors.Is(err, ErrChanged) {
		t.Fatalf("LineAt after truncation: %v", err)
	}
}

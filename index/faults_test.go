package index

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/search"
)

// The index file's faults: a file truncated
// under the mapping, a file whose checksum holds but whose structure does
// not, files of the tree that are no files by the time the build opens
// them.

// builtIndex builds the index of a generated tree of n files in a cache
// of its own and returns the tree, the cache and the index file's path.
func builtIndex(t testing.TB, n int) (dir, cache, file string) {
	t.Helper()
	dir = genTree(t, n, 27)
	cache = filepath.Join(t.TempDir(), "index")
	m := newManager(t, Options{Dir: cache, Logger: quiet()})
	m.Candidates(dir, nil, "")
	waitState(t, m, dir, StateReady)
	m.Close()
	files, _ := filepath.Glob(filepath.Join(cache, "*.idx"))
	if len(files) != 1 {
		t.Fatalf("index files: %q", files)
	}
	return dir, cache, files[0]
}

// resum sets the checksum of the index file data to what its bytes give,
// as a forger would (or a build with a bug).
func resum(data []byte) {
	if len(data) < trailerSize {
		return
	}
	body := len(data) - trailerSize
	binary.LittleEndian.PutUint32(data[body+24:], crc32.Checksum(data[:body+24], castagnoli))
}

// trailerOf decodes data's trailer without checking it.
func trailerOf(data []byte) trailer {
	t := data[len(data)-trailerSize:]
	le := binary.LittleEndian
	return trailer{tableOff: le.Uint64(t), filesOff: le.Uint64(t[8:]), nTri: le.Uint32(t[16:]), nFiles: le.Uint32(t[20:])}
}

// TestIndexForged: an index file whose checksum holds but that writeIndex
// did not write so is ErrCorrupt at load, and a daemon that finds it
// rebuilds the tree's index rather than trust it. main answered a grep
// from a file with its table shuffled: "[No matches]".
func TestIndexForged(t *testing.T) {
	t.Parallel()
	dir, cache, file := builtIndex(t, 60)
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	tr := trailerOf(orig)
	row := func(d []byte, i int) []byte { return d[tr.tableOff+uint64(i)*tableEntry:] }
	// The first file's record: size, mtime, flags, pathLen, path, nBlocks.
	rec := func(d []byte) []byte { return d[tr.filesOff:] }
	tests := []struct {
		name  string
		forge func(d []byte) []byte
	}{
		{"table shuffled", func(d []byte) []byte {
			rows := make([][tableEntry]byte, tr.nTri)
			for i := range rows {
				rows[i] = [tableEntry]byte(row(d, i))
			}
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
			for i := range rows {
				copy(row(d, i), rows[i][:])
			}
			return d
		}},
		{"two trigrams swapped", func(d []byte) []byte {
			a, b := le.Uint32(row(d, 10)), le.Uint32(row(d, 11))
			le.PutUint32(row(d, 10), b)
			le.PutUint32(row(d, 11), a)
			return d
		}},
		{"postings offset into the table", func(d []byte) []byte {
			le.PutUint64(row(d, 3)[8:], tr.tableOff)
			return d
		}},
		{"postings of another trigram", func(d []byte) []byte {
			copy(row(d, 3)[4:], row(d, 4)[4:16])
			return d
		}},
		{"postings cut short", func(d []byte) []byte {
			le.PutUint32(row(d, 5)[4:], le.Uint32(row(d, 5)[4:])-2)
			return d
		}},
		{"a trigram past 24 bits", func(d []byte) []byte {
			le.PutUint32(row(d, int(tr.nTri)-1), 1<<24)
			return d
		}},
		{"a file id past the files", func(d []byte) []byte {
			// Renumber: the first file's id 0 stands for a document that
			// is not there, the lists of the files unchanged otherwise.
			le.PutUint32(d[len(d)-trailerSize+20:], 0)
			return d
		}},
		{"a path out of the tree", func(d []byte) []byte {
			r := rec(d)
			n := int(le.Uint16(r[17:]))
			copy(r[19:19+n], strings.Repeat("../x/", n)[:n])
			return d
		}},
		{"a path twice", func(d []byte) []byte {
			// The path of a later record of the same length as another's.
			seen := map[int][]byte{}
			for r, i := rec(d), uint32(0); i < tr.nFiles; i++ {
				n := int(le.Uint16(r[17:]))
				if first, ok := seen[n]; ok {
					copy(r[19:19+n], first)
					return d
				}
				seen[n] = r[19 : 19+n]
				r = r[fileRecord+n+12*int(le.Uint16(r[19+n:])):]
			}
			panic("no two paths of one length")
		}},
		{"unknown flags", func(d []byte) []byte {
			rec(d)[16] |= 0x80
			return d
		}},
		{"bytes after the files", func(d []byte) []byte {
			body := d[:len(d)-trailerSize]
			trail := slices.Clone(d[len(d)-trailerSize:])
			return append(append(slices.Clone(body), 0, 0, 0, 0), trail...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.forge(slices.Clone(orig))
			resum(d)
			if _, err := parseIndex(d); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("parseIndex: %v, want ErrCorrupt", err)
			}
		})
	}
	if _, err := parseIndex(slices.Clone(orig)); err != nil {
		t.Fatalf("the file as written: %v", err)
	}
	// A daemon that finds the shuffled one rebuilds, and answers as a scan.
	d := tests[0].forge(slices.Clone(orig))
	resum(d)
	if err := os.WriteFile(file, d, 0o600); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, Options{Dir: cache, Logger: quiet()})
	m.Candidates(dir, nil, "")
	if s := waitState(t, m, dir, StateReady); s.BuiltMs == 0 {
		t.Errorf("a forged index was used: %+v", s)
	}
	for _, p := range []string{"mutex_lock", "sched", "probe"} {
		if !grepBoth(t, m, dir, search.Query{Pattern: p}, search.GrepOptions{}) {
			t.Errorf("%s: the rebuilt index did not answer", p)
		}
	}
}

// TestIndexTruncatedWhileMapped: the index file cut short while mapped (a
// cache cleaner, a full disk's repair, someone's truncate) made the next
// grep's read of the postings a SIGBUS, and the daemon died. Now the grep
// scans, the index is not trusted (stats says why) and is rebuilt.
func TestIndexTruncatedWhileMapped(t *testing.T) {
	t.Parallel()
	for _, size := range []int64{0, 4096} {
		dir := genTree(t, 60, 28)
		cache := filepath.Join(t.TempDir(), "index")
		m := newManager(t, Options{Dir: cache, Logger: quiet()})
		m.Candidates(dir, nil, "")
		waitState(t, m, dir, StateReady)
		gen := m.generation(dir)
		files, _ := filepath.Glob(filepath.Join(cache, "*.idx"))
		if len(files) != 1 {
			t.Fatalf("index files: %q", files)
		}
		if err := os.Truncate(files[0], size); err != nil {
			t.Fatal(err)
		}
		// The plan of a query no grep asked before: the postings are read.
		if m.Candidates(dir, QueryFor("zz_mutex_probe", true, false), "") != nil && m.generation(dir) == gen {
			t.Errorf("truncated to %d: the index answered", size)
		}
		for m.generation(dir) == gen {
			waitState(t, m, dir, StateReady) // the rebuild
		}
		waitState(t, m, dir, StateReady)
		if !grepBoth(t, m, dir, search.Query{Pattern: "mutex_lock"}, search.GrepOptions{}) {
			t.Errorf("truncated to %d: the rebuilt index did not answer", size)
		}
	}
}

// TestBuildSpecialFiles: files of the listing that are no regular files
// by the time the build opens them (a FIFO, a socket, a symlink to a
// FIFO, gone) are not indexed, and the build ends. main opened them as
// they block: a FIFO held the build, "building", for ever.
func TestBuildSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := genTree(t, 20, 29)
	listing, err := search.Files(context.Background(), dir, search.GrepOptions{})
	if err != nil {
		t.Fatal(err)
	}
	swap := map[string]func(path string) error{
		"fifo":   func(p string) error { return syscall.Mkfifo(p, 0o644) },
		"socket": func(p string) error { _, err := net.Listen("unix", p); return err },
		"symlink to a fifo": func(p string) error {
			if err := syscall.Mkfifo(p+".fifo", 0o644); err != nil {
				return err
			}
			return os.Symlink(filepath.Base(p)+".fifo", p)
		},
		"gone": func(string) error { return nil },
	}
	special := map[string]bool{}
	i := 0
	for name, make := range swap {
		rel := listing.Files[i].Rel
		i += 3
		path := filepath.Join(dir, rel)
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := make(path); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		special[rel] = true
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	out := filepath.Join(t.TempDir(), "x.idx")
	go func() { done <- build(ctx, root, listing.Files, out, &progress{}) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the build did not end within 10 s: blocked on a special file")
	}
	idx, err := openIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.close()
	for rel := range special {
		id, ok := idx.byPath[rel]
		if !ok || idx.files[id].flags&flagSkipped == 0 {
			t.Errorf("%s: indexed (%v)", rel, ok)
		}
	}
}

// FuzzParseIndex: whatever an index file holds, its checksum made to
// hold, loading it either fails with ErrCorrupt or gives an index whose
// queries answer with documents it has, and never panics.
func FuzzParseIndex(f *testing.F) {
	_, _, file := builtIndex(f, 12)
	orig, err := os.ReadFile(file)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(orig)
	f.Add(orig[:len(orig)/2])
	f.Add([]byte{})
	queries := []*Query{QueryFor("mutex", true, false), QueryFor("sched|probe", false, true), QueryFor("lock.*unlock", false, false)}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < trailerSize {
			return
		}
		data = slices.Clone(data)
		resum(data)
		m, err := parseIndex(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("not ErrCorrupt: %v", err)
			}
			return
		}
		docs := uint32(len(m.files) + len(m.docFile))
		for _, q := range queries {
			bm, err := m.eval(q)
			if err != nil {
				t.Fatalf("eval of a sound index: %v", err)
			}
			if bm != nil && !bm.IsEmpty() && bm.Maximum() >= docs {
				t.Fatalf("a document past the %d there are: %d", docs, bm.Maximum())
			}
			if bm != nil {
				m.fileSet(bm)
			}
		}
	})
}

package fileindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toold/toold/search"
)

// MaxSnapshotBytes caps what is read of a file whose size the file system
// does not tell (size 0 in stat, or a pseudo file system such as procfs and
// sysfs): such a file is read to EOF, at most this much, and windowed from
// memory.
const MaxSnapshotBytes = 16 << 20

const (
	// snapshotBudget bounds the snapshots held at once by a Cache's Files
	// (all the daemon's reads): past its first snapshotFree bytes a
	// snapshot waits for MaxSnapshotBytes of it, keeps what it holds until
	// its File is closed and gives the rest back at once. 64 reads of
	// /proc/kallsyms (5 MB) at once held 650 MiB.
	snapshotBudget = 48 << 20
	// snapshotFree is read of any snapshot without the budget: most
	// procfs and sysfs files end within it.
	snapshotFree = 64 << 10
)

// File is an open file and, once Index has run, its line index. The index
// describes the file as it was at Open: Size bytes. A File is safe for
// concurrent use; Close it when done.
type File struct {
	c    *Cache
	path string
	f    *os.File
	r    io.ReaderAt // f, or the snapshot of a file whose size lies
	snap bool        // r is a snapshot: indexed apart from the Cache
	cut  bool        // the snapshot stopped at MaxSnapshotBytes
	id   fileID
	held atomic.Int64 // of the Cache's snapshot budget, given back at Close

	mu  sync.Mutex
	idx *index
}

var _ io.ReaderAt = (*File)(nil)

// appendSettle bounds how long appending waits for an append in flight to
// move the size: a writer can be preempted between the two updates, longest
// on a loaded machine. Only a same-size state with a newer mtime waits, and
// the alternative is a rebuild from scratch, which costs more.
const appendSettle = 5 * time.Millisecond

// appending reports whether the file grows past the size f was opened at
// within appendSettle: an append was under way when f's fstat saw its times
// move first (a write updates the times before the size).
func (f *File) appending() bool {
	if f.snap {
		return false
	}
	wait := 20 * time.Microsecond
	for deadline := time.Now().Add(appendSettle); ; wait *= 2 {
		fi, err := f.f.Stat()
		if err != nil {
			return false
		}
		if fi.Size() > f.id.size {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
	}
}

// openFile opens path read-only as every open of a path a client names
// is (search.ReadFlags): without blocking on a FIFO, nor a terminal
// becoming the daemon's controlling terminal.
func openFile(path string) (*os.File, error) {
	return os.OpenFile(path, search.ReadFlags, 0)
}

// adopt fstats f, opened read-only for path, and makes it a File. Directories
// and other non-regular files are refused with an *fs.PathError, and f is
// closed on every error. A file whose stat size cannot be trusted is read to
// EOF (at most MaxSnapshotBytes) and served from that snapshot.
func (c *Cache) adopt(ctx context.Context, path string, f *os.File) (*File, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	switch {
	case fi.IsDir():
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrIsDir}
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	file := &File{c: c, path: path, f: f, r: f, id: statID(fi)}
	lies := sizeLies(f)
	if file.id.size > 0 && !lies {
		return file, nil
	}
	data, cut, held, err := c.readSnapshot(ctx, f, MaxSnapshotBytes)
	file.held.Store(held)
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if len(data) > 0 || lies {
		// A truly empty file stays a cached index, so that its growth extends it.
		file.r, file.snap, file.cut = bytes.NewReader(data), true, cut
		file.id.size = int64(len(data))
	}
	return file, nil
}

// readSnapshot reads f from its start to EOF, at most max bytes; cut says
// that more followed. Past snapshotFree bytes it waits for the budget of
// a whole snapshot, and returns what it holds of it (the buffer's
// capacity), for Close to give back; the rest is given back at once.
func (c *Cache) readSnapshot(ctx context.Context, f *os.File, max int64) (data []byte, cut bool, held int64, err error) {
	var buf bytes.Buffer
	r := io.NewSectionReader(f, 0, max+1)
	chunk := make([]byte, 64<<10)
	defer func() {
		if held > 0 && err != nil {
			c.snaps.Release(held)
			held = 0
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, held, err
		}
		if held == 0 && int64(buf.Len()) >= snapshotFree {
			if err := c.snaps.Acquire(ctx, snapshotWeight); err != nil {
				return nil, false, 0, err
			}
			held = snapshotWeight
		}
		n, err := r.Read(chunk)
		buf.Write(chunk[:n])
		if errors.Is(err, io.EOF) {
			data = buf.Bytes()
			if int64(len(data)) > max {
				data, cut = data[:max], true
			}
			if keep := int64(cap(data)); held > keep {
				c.snaps.Release(held - keep)
				held = keep
			}
			return data, cut, held, nil
		}
		if err != nil {
			return nil, false, held, err
		}
	}
}

// snapshotWeight is what a snapshot may hold: a buffer grown by doubling
// past MaxSnapshotBytes and a chunk.
const snapshotWeight = 2*MaxSnapshotBytes + 64<<10

// Close closes the file and gives back what its snapshot held of the
// budget. The cached index stays in the Cache.
func (f *File) Close() error {
	if held := f.held.Swap(0); held > 0 {
		f.c.snaps.Release(held)
	}
	return f.f.Close()
}

// Cut reports whether the File is a snapshot of a file without a size that
// went on past MaxSnapshotBytes: Size is then the cap, not the file's end.
func (f *File) Cut() bool { return f.cut }

// Path returns the absolute path the File was opened with.
func (f *File) Path() string { return f.path }

// Size returns the file's size when it was opened, which is what the index
// covers. Bytes appended since are not counted in Lines.
func (f *File) Size() int64 { return f.id.size }

// Index builds the File's line index, or takes a valid one from the Cache,
// extending it when the file only grew. It must be called before Lines,
// LineStart and LineAt; cancelling ctx aborts a long build. It does nothing
// once it has succeeded.
func (f *File) Index(ctx context.Context) error {
	_, err := f.index(ctx)
	return err
}

func (f *File) index(ctx context.Context) (*index, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.idx != nil {
		return f.idx, nil
	}
	var x *index
	var err error
	if f.snap {
		// A snapshot is no state of the file that stat could check later:
		// index it, keep nothing.
		err = f.c.withBuf(func(buf []byte) error {
			x, err = build(ctx, f.r, f.id, f.c.spacing, buf)
			return err
		})
	} else {
		x, err = f.c.index(ctx, f)
	}
	if err != nil {
		return nil, fmt.Errorf("fileindex: indexing %s: %w", f.path, err)
	}
	f.idx = x
	return x, nil
}

// Lines returns the number of lines: the '\n' count, plus one when the file
// is not empty and its last byte is not '\n'; 0 for an empty file. Without a
// prior successful Index it indexes with context.Background(), and returns 0
// if that fails.
func (f *File) Lines() int64 {
	x, err := f.index(context.Background())
	if err != nil {
		return 0
	}
	return x.lines()
}

// LineStart returns the byte offset where line n (1-based) starts. n ==
// Lines()+1 gives Size(); other n outside 1..Lines() give ErrOutOfRange. It
// reads at most Options.Spacing bytes.
func (f *File) LineStart(n int64) (int64, error) {
	x, err := f.index(context.Background())
	if err != nil {
		return 0, err
	}
	var start int64
	err = f.c.withLookupBuf(func(buf []byte) error {
		start, err = x.lineStart(f.r, buf, n)
		return err
	})
	return start, f.wrap(err)
}

// LineAt returns the line n that holds byte off, 0 <= off < Size(), and the
// offset where that line starts. Other offsets give ErrOutOfRange.
func (f *File) LineAt(off int64) (n int64, start int64, err error) {
	x, err := f.index(context.Background())
	if err != nil {
		return 0, 0, err
	}
	err = f.c.withLookupBuf(func(buf []byte) error {
		n, start, err = x.lineAt(f.r, buf, off)
		return err
	})
	return n, start, f.wrap(err)
}

// ReadAt reads the open file. Callers stay within Size(): bytes appended
// since Open are readable but not indexed. A short read inside Size() means
// the file shrank since Open: the error wraps ErrChanged.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.r.ReadAt(p, off)
	switch {
	case n == len(p):
		return n, nil // a full read, even one that met EOF (or of nothing)
	case off+int64(len(p)) <= f.id.size && (err == nil || errors.Is(err, io.EOF)):
		err = ErrChanged
	}
	return n, f.wrap(err)
}

// wrap names the file in ErrChanged, which then reads as an *fs.PathError.
func (f *File) wrap(err error) error {
	if err == ErrChanged {
		return &fs.PathError{Op: "read", Path: f.path, Err: err}
	}
	return err
}

// SameFile reports whether fi, a stat of a path, is of the file f has open:
// for a program that reads the path itself (ctags), to check that the name
// still leads to what was opened and checked.
func (f *File) SameFile(fi os.FileInfo) bool {
	return !f.snap && statID(fi).sameInode(f.id)
}

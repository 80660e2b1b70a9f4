package spool

import (
	"fmt"
	"os"
	"sync"
)

// File is one spool file being written. Write never fails its caller: the
// first write error is kept in Err and writing stops; past the cap or the
// quotas writing stops and Capped is true. Its methods are safe for
// concurrent use.
type File struct {
	d     *Dir
	id    string
	path  string
	info  os.FileInfo // of the file created, to know it again
	limit int64

	// guarded by d.mu
	reserved int64 // bytes counted against the quotas
	evicted  bool

	mu     sync.Mutex
	f      *os.File // nil once closed
	n      int64
	capped bool
	err    error
}

// Open opens the file for reading, as Dir.Open opens it by its id: what
// was written, or an error (ErrReplaced when a command put something else
// in its place; one that errors.Is counts as fs.ErrNotExist when it was
// evicted or its Dir removed).
func (f *File) Open() (*os.File, error) { return f.d.Open(f.id) }

// ID returns the file's id, 32 hex digits.
func (f *File) ID() string { return f.id }

// Path returns the file's absolute path.
func (f *File) Path() string { return f.path }

// Write writes p up to the cap and the quotas and always returns len(p),
// nil. After an error, past the cap, after Close, after eviction or after
// the Dir's Remove, it drops p.
func (f *File) Write(p []byte) (int, error) {
	f.mu.Lock()
	stop := f.f == nil || f.err != nil || f.capped
	want := min(int64(len(p)), f.limit-f.n)
	f.mu.Unlock()
	if stop {
		return len(p), nil
	}
	// Reserved and evicted without f.mu: the order is f.mu, then d.mu.
	got, victims := f.d.reserve(f, want)
	for _, v := range victims {
		v.discard()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil || f.err != nil {
		f.d.release(f, got)
		return len(p), nil
	}
	if room := f.limit - f.n; got > room { // a concurrent Write took some
		f.d.release(f, got-room)
		got = room
	}
	if got < int64(len(p)) {
		f.capped = true
	}
	if got > 0 {
		n, err := f.f.Write(p[:got])
		f.n += int64(n)
		f.d.release(f, got-int64(n))
		if err != nil {
			f.err = fmt.Errorf("spool: write %s: %w", f.path, err)
		}
	}
	return len(p), nil
}

// Bytes returns how many bytes were written to the file.
func (f *File) Bytes() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// Capped reports whether output past the cap or the quotas was dropped.
func (f *File) Capped() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.capped
}

// Err returns the first error met writing the file, or nil.
func (f *File) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Close closes the file; it stays in its Dir, readable, until Remove.
func (f *File) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		return nil
	}
	err := f.f.Close()
	f.f = nil
	if err != nil {
		return fmt.Errorf("spool: close %s: %w", f.path, err)
	}
	return nil
}

// discard closes the file for its Dir's Remove or its eviction, and deletes
// an evicted file (Remove deletes the whole directory).
func (f *File) discard() {
	f.mu.Lock()
	if f.f != nil {
		f.f.Close()
		f.f = nil
	}
	f.mu.Unlock()
	f.d.mu.Lock()
	evicted := f.evicted
	f.d.mu.Unlock()
	if evicted {
		os.Remove(f.path)
	}
}

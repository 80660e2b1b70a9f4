package spool

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// Dir is one session's spool directory.
type Dir struct {
	m    *Manager
	path string
	info os.FileInfo // of the directory made, nil when err is set
	err  error       // why the directory could not be made; Create fails with it

	mu      sync.Mutex
	files   map[string]*File         // live files by id
	order   []*File                  // live files, oldest first
	evicted map[string]*EvictedError // by id
	bytes   int64                    // reserved by the live files
	removed bool
}

// Path returns the directory's absolute path.
func (d *Dir) Path() string { return d.path }

// Info is what Lstat said of the directory once made, to know it again
// (nil when it could not be made).
func (d *Dir) Info() os.FileInfo { return d.info }

// Err says why the directory could not be made, or is nil.
func (d *Dir) Err() error { return d.err }

// Create makes a new spool file for stream (e.g. "stdout"), 0600, named
// <id>.<stream>.log, where id is 128 random bits in hex. It fails with
// ErrClosed after Remove, and with Err when the directory is missing.
func (d *Dir) Create(stream string) (*File, error) {
	if !validName(stream) {
		return nil, fmt.Errorf("spool: stream %q: %w", stream, ErrBadName)
	}
	if d.err != nil {
		return nil, d.err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("spool: id: %w", err)
	}
	id := hex.EncodeToString(b[:])
	path := filepath.Join(d.path, id+"."+stream+".log")

	// Held across the open so that Remove cannot miss a file being made.
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.removed {
		return nil, fmt.Errorf("spool: create in %s: %w", d.path, ErrClosed)
	}
	f, err := d.m.openFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("spool: %w", err)
	}
	sf := &File{d: d, id: id, path: path, info: info, f: f, limit: d.m.maxFileBytes()}
	d.files[id] = sf
	d.order = append(d.order, sf)
	return sf, nil
}

// Find returns the path of the spool file id of this session, or an error
// that wraps ErrEvicted, with the reason, or ErrNoSpool.
func (d *Dir) Find(id string) (string, error) {
	sf, err := d.find(id)
	if err != nil {
		return "", err
	}
	return sf.path, nil
}

func (d *Dir) find(id string) (*File, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if why, ok := d.evicted[id]; ok {
		return nil, why
	}
	sf, ok := d.files[id]
	if !ok {
		return nil, ErrNoSpool
	}
	return sf, nil
}

// Open opens the spool file id of this session for reading: the one way
// a spool is read back (page, grep, exec's evidence, the process methods),
// since the commands that write it may write in the directory too. It
// opens without following a symlink or blocking (a FIFO in its place),
// and checks that what it opened is the file written, so that a symlink,
// FIFO or file a command planted over it is refused (ErrReplaced). Other
// errors are Find's.
func (d *Dir) Open(id string) (*os.File, error) {
	sf, err := d.find(id)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(sf.path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("%w: a symlink is in its place", ErrReplaced)
	}
	if err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, sf.info) {
		f.Close()
		return nil, fmt.Errorf("%w: another file is in its place", ErrReplaced)
	}
	return f, nil
}

// Delete closes and deletes the spool file id, which its output no longer
// needs (shown whole after all: an exec that ended before its yieldMs);
// Manager.Bytes drops by what it held. Find and Open then give
// ErrNoSpool. An id the session does not have gives ErrNoSpool.
func (d *Dir) Delete(id string) error {
	d.mu.Lock()
	f, ok := d.files[id]
	if !ok {
		d.mu.Unlock()
		return ErrNoSpool
	}
	delete(d.files, id)
	for i, o := range d.order {
		if o == f {
			d.order = append(d.order[:i], d.order[i+1:]...)
			break
		}
	}
	d.bytes -= f.reserved
	d.m.unreserve(f.reserved)
	f.reserved = 0
	d.mu.Unlock()
	f.discard()
	if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

// Remove closes and deletes the directory's files and the directory. It is
// idempotent; Manager.Bytes drops by what the files held.
func (d *Dir) Remove() error {
	d.mu.Lock()
	if d.removed {
		d.mu.Unlock()
		return nil
	}
	d.removed = true
	files := d.order
	d.files, d.order = nil, nil
	d.m.unreserve(d.bytes)
	d.bytes = 0
	d.mu.Unlock()

	for _, f := range files {
		f.discard()
	}
	d.m.forget(d)
	if err := removeAll(d.path); err != nil {
		return fmt.Errorf("spool: %w", err)
	}
	return nil
}

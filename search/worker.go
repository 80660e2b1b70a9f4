package search

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// worker searches the files of jobs, reusing its scanner and buffer.
type worker struct {
	ctx  context.Context
	root *os.Root
	s    *scanner
	buf  []byte
	name []byte // openFile's scratch
	// beneath opens the files a listing names (GrepListing).
	beneath beneathCache
	// help takes the job being searched (job) when one of its files is
	// large, for an idle worker to share.
	help  chan *batch
	job   *batch
	ahead *ahead
	text  bool // the file being searched is known text: not judged
}

// run searches the jobs sent on jobs, and those offered on help, until
// jobs is closed. A job offered on help always has a worker that goes on
// with it: none needs a helper to end.
func (w *worker) run(jobs <-chan *batch) {
	for {
		var j *batch
		select {
		case jj, ok := <-jobs:
			if !ok {
				return
			}
			j = jj
			j.outs = make([]outcome, len(j.files)) // before any other worker sees j
		case j = <-w.help:
		}
		w.search(j)
	}
}

// search searches the files of j that no other worker has claimed; the
// worker that ends its last file sends its outcomes and releases its
// directory. The walk batches the files of a directory, and a directory
// may hold large files only: the kernel's asic_reg/dcn holds 121 MB in
// 28 files, one job, which another worker shares once the first large
// file is met.
func (w *worker) search(j *batch) {
	w.job = j
	defer func() { w.job = nil }()
	for {
		i := int(j.next.Add(1)) - 1
		if i >= len(j.files) {
			return
		}
		pos := j.seq*batchSize + int64(i)
		if w.ahead.past(pos) {
			j.outs[i] = outcome{skip: skipOther} // never merged: the limit comes before
		} else {
			j.outs[i] = w.searchFile(j.dir, &j.files[i])
			w.ahead.found(pos, &j.outs[i])
		}
		if int(j.done.Add(1)) == len(j.files) {
			j.dir.release()
			j.out <- j.outs
			return
		}
	}
}

// shareSize is how large a file is when its job is offered to an idle
// worker: a few milliseconds of search.
const shareSize = 256 << 10

// share offers the job being searched to an idle worker, when files of it
// are left to claim.
func (w *worker) share() {
	if j := w.job; j != nil && int(j.next.Load()) < len(j.files) {
		select {
		case w.help <- j:
		default: // the other workers are offered enough
		}
	}
}

func (w *worker) searchFile(dir *dirHandle, f *target) outcome {
	if err := w.ctx.Err(); err != nil {
		return outcome{skip: skipOther}
	}
	w.text = f.text
	if f.symlink {
		r, size, err := openTarget(w.ctx, w.root, dir, f)
		if err != nil {
			return outcome{skip: skipOther}
		}
		defer r.Close()
		return w.scan(r, size, 0)
	}
	var fd int
	var err error
	if f.beneath {
		fd, err = w.beneath.open(dir, f.name)
	} else {
		fd, err = openFile(dir.fd, f.name, &w.name)
	}
	if err != nil {
		return outcome{skip: skipOther}
	}
	defer unix.Close(fd)
	if f.parts != nil {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && f.parts.usable(&st) {
			return w.scanParts(fd, st.Size, f.parts)
		}
	}
	// Most files of a tree are small: one read into the worker's buffer
	// holds them whole, and a read that comes back short of the buffer
	// has met the file's end (as a regular file's read does), so neither
	// a stat nor a read that returns 0 is needed. The name was a regular
	// file when its directory was read; should it have become something
	// else since, a pipe refuses pread and a directory read, and what
	// fills the buffer is looked at with fstat as a large file is.
	head := headSize
	if limit := w.s.opt.MaxFileSize; limit > 0 && limit < headSize {
		head = int(limit) + 1 // a file that fills it is too large
	}
	w.needBuf(head)
	buf := w.buf[:head]
	n, err := preadOnce(fd, buf)
	if n >= shareSize {
		w.share()
	}
	switch {
	case err != nil:
		return outcome{skip: skipOther}
	case n < len(buf):
		return w.scanAll(buf[:n])
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return outcome{skip: skipOther}
	}
	// A file that shrank since the read is searched as it was read.
	return w.scan(fdReader(fd), max(st.Size, int64(n)), n)
}

// headSize is how much of a file the first read asks for.
const headSize = chunkSize

// bufs keeps the workers' buffers (*[]byte of headSize to 2*chunkSize
// bytes) from one grep to the next: each grep starts a worker a CPU, and
// each worker that met a file made and zeroed a buffer of headSize (a
// MiB) for its first read.
var bufs sync.Pool

// needBuf makes w.buf hold at least n bytes: one kept in bufs, else a
// new one.
func (w *worker) needBuf(n int) {
	if cap(w.buf) >= n {
		return
	}
	if p, ok := bufs.Get().(*[]byte); ok {
		if cap(*p) >= n {
			w.buf = *p
			return
		}
		bufs.Put(p)
	}
	w.buf = make([]byte, n)
}

// putBuf gives w.buf to bufs, unless a long line grew it past 2*chunkSize
// (see scan).
func (w *worker) putBuf() {
	if b := w.buf; cap(b) >= headSize && cap(b) <= 2*chunkSize {
		bufs.Put(&b)
	}
	w.buf = nil
}

// scan searches the first size bytes of r, of which w.buf[:have] are read.
func (w *worker) scan(r io.ReaderAt, size int64, have int) outcome {
	if opt := w.s.opt; opt.MaxFileSize > 0 && size > opt.MaxFileSize {
		return outcome{skip: skipTooLarge}
	}
	s := w.s
	s.reset()
	s.judged = w.text
	switch err := s.scanReaderAt(w.ctx, r, size, &w.buf, have); {
	case errors.Is(err, errBinary):
		return outcome{skip: skipBinary}
	case err != nil:
		return outcome{skip: skipOther}
	}
	if cap(w.buf) > 2*chunkSize {
		w.buf = nil // a long line grew it: do not keep that much
	}
	return outcome{res: s.res, hit: s.hit}
}

// scanAll searches a whole file held in buf.
func (w *worker) scanAll(buf []byte) outcome {
	s := w.s
	s.reset()
	s.judged = w.text
	if err := s.scanBuffer(buf); err != nil {
		return outcome{skip: skipBinary}
	}
	return outcome{res: s.res, hit: s.hit}
}

// readerAtCloser is an open file of the tree.
type readerAtCloser interface {
	io.ReaderAt
	io.Closer
}

// openTarget opens a regular file of the tree without blocking (a FIFO) and
// without leaving the tree: a plain file beneath its directory, a symlink
// through the tree's root, which refuses links that lead out of it.
func openTarget(ctx context.Context, root *os.Root, dir *dirHandle, f *target) (readerAtCloser, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if !f.symlink {
		return openFileAt(dir.fd, f.name)
	}
	file, err := root.OpenFile(f.rel(), ReadFlags, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		file.Close()
		return nil, 0, ErrNotRegular
	}
	return file, fi.Size(), nil
}

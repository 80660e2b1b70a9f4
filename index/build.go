package index

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/toold/toold/search"
)

// Build bounds.
const (
	// maxFileSize: larger files are not indexed (grep skips them as
	// tooLarge anyway): always candidates.
	maxFileSize = 64 << 20
	// segmentPostings is how many (trigram, file) pairs are held in memory
	// before they are written out as a segment: about 4 bytes each (and as
	// much again for the map and slices growing), so the build's anonymous
	// memory stays near 32 MiB whatever the tree.
	segmentPostings = 3 << 20
)

// progress counts a build's bytes for $/progress.
type progress struct {
	done, total atomic.Int64
}

// build indexes the files (of a listing of root) into the file at path,
// through segments in tmpDir merged at the end. Workers run at the lowest
// CPU priority. A symlinked file is not indexed (flagSkipped: always a
// candidate): a write to its target is seen under the target's name only.
func build(ctx context.Context, root *os.Root, files []search.ListedFile, path string, prog *progress) error {
	metas := make([]fileMeta, len(files))
	for i, f := range files {
		metas[i].path = f.Rel
		if f.Symlink {
			metas[i].flags |= flagSymlink
		}
		if fi, err := root.Stat(f.Rel); err == nil {
			prog.total.Add(min(fi.Size(), maxFileSize))
		}
	}
	tmpDir, err := os.MkdirTemp(filepath.Dir(path), "build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmpDir)
	segs, err := buildSegments(ctx, root, metas, tmpDir, prog)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "index-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := writeIndex(tmp, metas, func(emit func(uint32, *roaring.Bitmap) error) error {
		return mergeSegments(ctx, segs, emit)
	}); err != nil {
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// fileTris is one document's distinct trigrams: a file, or a block of a
// large one.
type fileTris struct {
	id   uint32
	tris []uint32
}

// A file over blockSize is indexed in blocks of about blockSize bytes,
// each a document of its own (its own id in the posting lists), each
// ending after a newline: a repeat grep reads only the blocks that may
// match, not a whole 20 MB generated header or 100 KB driver. On the
// kernel, 16 KiB blocks read 2-10x fewer bytes than 64 KiB ones for an
// index of 15% of the tree instead of 13% (bench/results.md). A block
// that would pass maxBlock (a line that long) ends the splitting: the
// rest is one.
var (
	blockSize = 16 << 10 // a var: tests make blocks of small files
	maxBlock  = 4 << 20
)

// buildSegments reads the files on every core and writes their postings
// as segments of at most segmentPostings pairs.
func buildSegments(ctx context.Context, root *os.Root, metas []fileMeta, tmpDir string, prog *progress) ([]string, error) {
	ids := make(chan uint32, 256)
	out := make(chan fileTris, 64)
	var wg sync.WaitGroup
	var docs atomic.Uint32 // the ids of blocks after a file's first
	docs.Store(uint32(len(metas)))
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lowPriority()
			r := &reader{root: root, seen: make([]uint64, 1<<24/64), docs: &docs}
			for id := range ids {
				if ctx.Err() != nil {
					return // the ids buffered: not read at nice 19 after a Close
				}
				r.index(id, &metas[id], prog, out)
			}
		}()
	}
	go func() {
		defer close(ids)
		for i := range metas {
			select {
			case ids <- uint32(i):
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()
	var segs []string
	post := map[uint32][]uint32{}
	n := 0
	var werr error
	for ft := range out {
		for _, t := range ft.tris {
			post[t] = append(post[t], ft.id)
		}
		n += len(ft.tris)
		if n >= segmentPostings && werr == nil {
			var seg string
			seg, werr = writeSegment(tmpDir, len(segs), post)
			segs = append(segs, seg)
			post, n = map[uint32][]uint32{}, 0
			debug.FreeOSMemory() // the last segment's map is garbage: give it back before the next grows
		}
	}
	if werr != nil {
		return nil, werr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	seg, err := writeSegment(tmpDir, len(segs), post)
	return append(segs, seg), err
}

// lowPriority puts the calling goroutine's thread at nice 19 where the
// system has a per-thread nice (Linux: threadNice). The thread stays
// locked and ends with its goroutine.
func lowPriority() {
	runtime.LockOSThread()
	threadNice(19)
}

// reader reads files and lists their trigrams; seen is a bitset of the
// 2^24 trigrams, cleared after each document by what it set.
type reader struct {
	root *os.Root
	buf  []byte
	seen []uint64
	docs *atomic.Uint32 // the next block id
}

// index sends the trigrams of the file meta names (id its id), its size
// and mtime recorded, a large one's block by block; none, with
// flagSkipped set, when it is not indexed: binary (a NUL in its first
// 8 KiB, as grep judges), too large, unreadable.
func (r *reader) index(id uint32, meta *fileMeta, prog *progress, out chan<- fileTris) {
	if meta.flags&flagSymlink != 0 {
		meta.flags |= flagSkipped
		out <- fileTris{id: id}
		return
	}
	data, err := r.read(meta)
	prog.done.Add(int64(len(data)))
	if err != nil || bytes.IndexByte(data[:min(len(data), 8<<10)], 0) >= 0 {
		meta.flags |= flagSkipped
		out <- fileTris{id: id}
		return
	}
	if !search.IsBinary(data) {
		meta.flags |= flagText
	}
	end := blockEnd(data, 0)
	out <- fileTris{id: id, tris: r.trigrams(data[:end])}
	for line := 1 + bytes.Count(data[:end], nl); end < len(data); {
		off := end
		end = blockEnd(data, off)
		b := block{doc: r.docs.Add(1) - 1, off: uint32(off), line: uint32(line)}
		meta.blocks = append(meta.blocks, b)
		out <- fileTris{id: b.doc, tris: r.trigrams(data[off:end])}
		line += bytes.Count(data[off:end], nl)
	}
}

var nl = []byte{'\n'}

// blockEnd is where the block of data that starts at off ends: after the
// first newline at or past blockSize bytes, or at the end.
func blockEnd(data []byte, off int) int {
	if len(data)-off <= blockSize {
		return len(data)
	}
	i := bytes.IndexByte(data[off+blockSize:], '\n')
	if i < 0 || blockSize+i+1 > maxBlock {
		return len(data)
	}
	return off + blockSize + i + 1
}

// trigrams returns the distinct ASCII-lower-cased trigrams of data.
func (r *reader) trigrams(data []byte) []uint32 {
	var tris []uint32
	if len(data) < 3 {
		return nil
	}
	t := uint32(lowerByte(data[0]))<<8 | uint32(lowerByte(data[1]))
	for _, c := range data[2:] {
		t = (t<<8 | uint32(lowerByte(c))) & (1<<24 - 1)
		if w, b := t/64, uint64(1)<<(t%64); r.seen[w]&b == 0 {
			r.seen[w] |= b
			tris = append(tris, t)
		}
	}
	for _, t := range tris {
		r.seen[t/64] = 0
	}
	return tris
}

// read reads the whole file (up to maxFileSize) into r's buffer and
// records its size and mtime as it was before the read: a write after
// that changes the mtime, and the watcher marks it.
func (r *reader) read(meta *fileMeta) ([]byte, error) {
	// As grep opens: a FIFO swapped in since the listing must not block
	// (the build stayed "building" for ever, and the daemon could not
	// exit); the type is checked once open.
	f, err := r.root.OpenFile(meta.path, search.ReadFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	meta.size, meta.mtime = fi.Size(), fi.ModTime().UnixNano()
	if fi.Size() > maxFileSize {
		return nil, errors.New("too large")
	}
	if int64(cap(r.buf)) < fi.Size()+1 {
		r.buf = make([]byte, fi.Size()+1)
	}
	n, err := io.ReadFull(f, r.buf[:fi.Size()+1])
	if err != io.ErrUnexpectedEOF && err != nil && n != int(fi.Size())+1 {
		return nil, err
	}
	if n > int(fi.Size()) {
		return nil, errors.New("grew while read") // the watcher marks it; not indexed
	}
	data := r.buf[:n]
	if cap(r.buf) > 4<<20 {
		r.buf = nil // a large file: do not keep its buffer
	}
	return data, nil
}

// writeSegment writes postings sorted by trigram: {tri, n, ids...}.
func writeSegment(dir string, i int, post map[uint32][]uint32) (string, error) {
	path := filepath.Join(dir, fmt.Sprintf("seg%04d", i))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	defer f.Close()
	keys := make([]uint32, 0, len(post))
	for k := range post {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w := bufio.NewWriterSize(f, 256<<10)
	for _, k := range keys {
		ids := post[k]
		slices.Sort(ids)
		b := binary.LittleEndian.AppendUint32(nil, k)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(ids)))
		w.Write(b)
		for _, id := range ids {
			w.Write(binary.LittleEndian.AppendUint32(b[:0], id))
		}
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return path, nil
}

// segReader reads a segment's rows in order.
type segReader struct {
	f   *os.File
	r   *bufio.Reader
	tri uint32
	ids []uint32
	eof bool
}

func (s *segReader) next() error {
	var h [8]byte
	if _, err := io.ReadFull(s.r, h[:]); err != nil {
		if err == io.EOF {
			s.eof = true
			return nil
		}
		return err
	}
	s.tri = binary.LittleEndian.Uint32(h[:])
	n := binary.LittleEndian.Uint32(h[4:])
	s.ids = s.ids[:0]
	var b [4]byte
	for range n {
		if _, err := io.ReadFull(s.r, b[:]); err != nil {
			return err
		}
		s.ids = append(s.ids, binary.LittleEndian.Uint32(b[:]))
	}
	return nil
}

// mergeSegments hands over each trigram's files from all segments, by
// increasing trigram, holding one row per segment in memory.
func mergeSegments(ctx context.Context, paths []string, emit func(uint32, *roaring.Bitmap) error) error {
	var segs []*segReader
	defer func() {
		for _, s := range segs {
			s.f.Close()
		}
	}()
	for _, p := range paths {
		f, err := openRegular(p)
		if err != nil {
			return err
		}
		s := &segReader{f: f, r: bufio.NewReaderSize(f, 64<<10)}
		segs = append(segs, s)
		if err := s.next(); err != nil {
			return err
		}
	}
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		low, any := uint32(0), false
		for _, s := range segs {
			if !s.eof && (!any || s.tri < low) {
				low, any = s.tri, true
			}
		}
		if !any {
			return nil
		}
		bm := roaring.New()
		for _, s := range segs {
			if !s.eof && s.tri == low {
				bm.AddMany(s.ids)
				if err := s.next(); err != nil {
					return err
				}
			}
		}
		if err := emit(low, bm); err != nil {
			return err
		}
	}
}

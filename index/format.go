package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/RoaringBitmap/roaring/v2"
	"golang.org/x/sys/unix"

	"github.com/toold/toold/search"
)

// The index file, little-endian:
//
//	postings  each trigram's roaring bitmap of file ids, 8-byte aligned
//	table     nTri × {trigram uint32, length uint32, offset uint64}, by trigram
//	files     nFiles × {size int64, mtimeNs int64, flags uint8, pathLen uint16, path,
//	          nBlocks uint16, nBlocks × {doc, offset, line uint32}}
//
// A posting list holds document ids: a file's id (its place in files),
// which stands for its first block, and the ids of its further blocks
// (large files: see blockSize), each with the byte offset and the number
// of the line it starts at.
//	trailer   {tableOff, filesOff uint64, nTri, nFiles uint32, crc32c uint32, magic [8]byte}
//
// The CRC-32C covers everything before it: a file cut short or changed
// fails it and is rebuilt, never trusted.

var magic = [8]byte{'t', 'o', 'o', 'l', 'd', 'i', 'x', '2'}

const (
	trailerSize = 8 + 8 + 4 + 4 + 4 + 8
	tableEntry  = 16
)

// File flags.
const (
	// flagSkipped: the file was not indexed (binary, too large, unreadable):
	// always a candidate.
	flagSkipped = 1 << iota
	// flagSymlink: a symlinked file (skipped too); only for the build.
	flagSymlink
	// flagText: grep judges the file text (search.IsBinary) as indexed:
	// while it is unchanged, a grep need not judge it again. An index
	// written before the flag has none: its files are judged.
	flagText
)

// fileMeta is one file of the index.
type fileMeta struct {
	path   string
	size   int64
	mtime  int64 // ns
	flags  uint8
	blocks []block // after the first (a large file)
}

// block is a block of a large file after its first: its document id,
// where it starts and the number of its first line.
type block struct {
	doc, off, line uint32
}

// ErrCorrupt is returned for an index file that fails its checks.
var ErrCorrupt = errors.New("index file corrupt")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// writer writes an index file, counting and checksumming what it writes.
type writer struct {
	w   *bufio.Writer
	crc hash.Hash32
	off uint64
	err error
}

func newWriter(f io.Writer) *writer {
	return &writer{w: bufio.NewWriterSize(f, 256<<10), crc: crc32.New(castagnoli)}
}

func (w *writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.w.Write(p)
	w.crc.Write(p[:n])
	w.off += uint64(n)
	w.err = err
	return n, err
}

func (w *writer) u32(v uint32) { w.Write(binary.LittleEndian.AppendUint32(nil, v)) }
func (w *writer) u64(v uint64) { w.Write(binary.LittleEndian.AppendUint64(nil, v)) }

func (w *writer) align8() {
	if pad := (8 - w.off%8) % 8; pad > 0 {
		w.Write(make([]byte, pad))
	}
}

// tableRow is one trigram's postings, where they are in the file.
type tableRow struct {
	tri, length uint32
	off         uint64
}

// writeIndex writes postings (as the merge hands them over, by increasing
// trigram), then the table and the files, then the trailer.
func writeIndex(f *os.File, files []fileMeta, postings func(emit func(tri uint32, bm *roaring.Bitmap) error) error) error {
	w := newWriter(f)
	var table []tableRow
	err := postings(func(tri uint32, bm *roaring.Bitmap) error {
		w.align8()
		off := w.off
		bm.RunOptimize()
		if _, err := bm.WriteTo(w); err != nil {
			return err
		}
		table = append(table, tableRow{tri: tri, length: uint32(w.off - off), off: off})
		return w.err
	})
	if err != nil {
		return err
	}
	w.align8()
	tableOff := w.off
	for _, r := range table {
		w.u32(r.tri)
		w.u32(r.length)
		w.u64(r.off)
	}
	filesOff := w.off
	for _, m := range files {
		var b []byte
		b = binary.LittleEndian.AppendUint64(b, uint64(m.size))
		b = binary.LittleEndian.AppendUint64(b, uint64(m.mtime))
		b = append(b, m.flags)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(m.path)))
		b = append(b, m.path...)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(m.blocks)))
		for _, k := range m.blocks {
			b = binary.LittleEndian.AppendUint32(b, k.doc)
			b = binary.LittleEndian.AppendUint32(b, k.off)
			b = binary.LittleEndian.AppendUint32(b, k.line)
		}
		w.Write(b)
	}
	w.u64(tableOff)
	w.u64(filesOff)
	w.u32(uint32(len(table)))
	w.u32(uint32(len(files)))
	sum := w.crc.Sum32()
	w.u32(sum)
	w.Write(magic[:])
	if w.err != nil {
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		return err
	}
	return f.Sync()
}

// mapped is an index file mapped read-only: its postings are read in
// place (the page cache, not the daemon's anonymous memory, holds them).
type mapped struct {
	data   []byte
	table  []byte
	nTri   int
	files  []fileMeta
	byPath map[string]uint32
	// docFile and docBlock map the ids of blocks after a file's first
	// (from len(files)) to their files and their places in them (1: the
	// file's second block).
	docFile  []uint32
	docBlock []uint16
}

// openRegular opens a file of the index directory to read it: never
// through a symlink, and not blocking on a FIFO planted in its place.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, search.ReadFlags|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrCorrupt, path)
	}
	return f, nil
}

// openIndex maps and checks the index file at path.
func openIndex(path string) (*mapped, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < trailerSize || fi.Size() > 1<<40 {
		return nil, fmt.Errorf("%w: %d bytes", ErrCorrupt, fi.Size())
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	var m *mapped
	err = guard(func() (err error) {
		m, err = parseIndex(data)
		return err
	})
	if err != nil {
		unix.Munmap(data)
		return nil, err
	}
	unix.Madvise(data, unix.MADV_RANDOM)
	return m, nil
}

// trailer is the index file's last trailerSize bytes, decoded.
type trailer struct {
	tableOff, filesOff uint64
	nTri, nFiles       uint32
}

// parseIndex checks the index file data (its checksum, then its
// structure) and returns it ready to query. A file whose checksum holds is
// still not trusted as it is: one that was not written as writeIndex
// writes (its table out of order, offsets or ids out of range, say one
// forged, or from a build with a bug) could answer that nothing matches
// where a scan finds lines, so it is ErrCorrupt and rebuilt.
func parseIndex(data []byte) (*mapped, error) {
	tr, err := parseTrailer(data)
	if err != nil {
		return nil, err
	}
	body := uint64(len(data) - trailerSize)
	m := &mapped{data: data, table: data[tr.tableOff:tr.filesOff], nTri: int(tr.nTri)}
	if err := m.parseFiles(data[tr.filesOff:body], tr.nFiles); err != nil {
		return nil, err
	}
	if err := m.checkTable(tr.tableOff); err != nil {
		return nil, err
	}
	return m, nil
}

// parseTrailer decodes and checks the trailer and the checksum.
func parseTrailer(data []byte) (trailer, error) {
	t := data[len(data)-trailerSize:]
	le := binary.LittleEndian
	tr := trailer{tableOff: le.Uint64(t), filesOff: le.Uint64(t[8:]), nTri: le.Uint32(t[16:]), nFiles: le.Uint32(t[20:])}
	sum := le.Uint32(t[24:])
	body := uint64(len(data) - trailerSize)
	switch {
	case [8]byte(t[28:]) != magic:
		return tr, fmt.Errorf("%w: no magic", ErrCorrupt)
	case tr.tableOff > tr.filesOff || tr.filesOff > body || tr.filesOff-tr.tableOff != uint64(tr.nTri)*tableEntry:
		return tr, fmt.Errorf("%w: bad offsets", ErrCorrupt)
	case crc32.Checksum(data[:body+24], castagnoli) != sum:
		return tr, fmt.Errorf("%w: checksum", ErrCorrupt)
	}
	return tr, nil
}

// fileRecord is the least a file's record takes: size, mtime, flags,
// pathLen, nBlocks.
const fileRecord = 8 + 8 + 1 + 2 + 2

// parseFiles reads the files' records (nFiles of them, filling recs
// exactly): each path a clean relative one, known once; each block's
// offset and line past the last's and within the file; the ids of blocks
// those after the files', each once.
func (m *mapped) parseFiles(recs []byte, nFiles uint32) error {
	if uint64(nFiles)*fileRecord > uint64(len(recs)) {
		return fmt.Errorf("%w: %d files in %d bytes", ErrCorrupt, nFiles, len(recs))
	}
	le := binary.LittleEndian
	m.files = make([]fileMeta, 0, nFiles)
	m.byPath = make(map[string]uint32, nFiles)
	nBlocks := 0
	for i := range nFiles {
		if len(recs) < fileRecord {
			return fmt.Errorf("%w: files", ErrCorrupt)
		}
		n := int(le.Uint16(recs[17:]))
		if len(recs) < fileRecord+n {
			return fmt.Errorf("%w: files", ErrCorrupt)
		}
		fm := fileMeta{size: int64(le.Uint64(recs)), mtime: int64(le.Uint64(recs[8:])), flags: recs[16], path: string(recs[19 : 19+n])}
		nb := int(le.Uint16(recs[19+n:]))
		recs = recs[fileRecord+n:]
		if len(recs) < 12*nb {
			return fmt.Errorf("%w: blocks", ErrCorrupt)
		}
		for k := range nb {
			fm.blocks = append(fm.blocks, block{doc: le.Uint32(recs[12*k:]), off: le.Uint32(recs[12*k+4:]), line: le.Uint32(recs[12*k+8:])})
		}
		recs = recs[12*nb:]
		if err := fm.check(); err != nil {
			return fmt.Errorf("%w: file %d: %v", ErrCorrupt, i, err)
		}
		if _, dup := m.byPath[fm.path]; dup {
			return fmt.Errorf("%w: %q twice", ErrCorrupt, fm.path)
		}
		m.files = append(m.files, fm)
		m.byPath[fm.path] = i
		nBlocks += nb
	}
	if len(recs) != 0 {
		return fmt.Errorf("%w: %d bytes after the files", ErrCorrupt, len(recs))
	}
	return m.mapBlocks(nBlocks)
}

// knownFlags are the flags a file's record may have.
const knownFlags = flagSkipped | flagSymlink | flagText

// check says what is wrong with a file's record, if anything.
func (f *fileMeta) check() error {
	switch {
	case f.path == "." || !fs.ValidPath(f.path) || strings.IndexByte(f.path, 0) >= 0:
		return fmt.Errorf("path %q", f.path)
	case f.size < 0 || f.flags&^knownFlags != 0:
		return fmt.Errorf("size %d, flags %#x", f.size, f.flags)
	case len(f.blocks) > 0 && f.flags&flagSkipped != 0:
		return errors.New("blocks of a file not indexed")
	}
	off, line := uint32(0), uint32(1)
	for _, b := range f.blocks {
		if b.off <= off || int64(b.off) >= f.size || b.line <= line {
			return fmt.Errorf("block at %d, line %d", b.off, b.line)
		}
		off, line = b.off, b.line
	}
	return nil
}

// mapBlocks maps the ids of the files' further blocks (nBlocks of them)
// to their files, checking that they are the ids after the files', each
// given once.
func (m *mapped) mapBlocks(nBlocks int) error {
	m.docFile = make([]uint32, nBlocks)
	m.docBlock = make([]uint16, nBlocks)
	for i := range m.docFile {
		m.docFile[i] = ^uint32(0)
	}
	for i, f := range m.files {
		for k, b := range f.blocks {
			d := int64(b.doc) - int64(len(m.files))
			if d < 0 || d >= int64(nBlocks) || m.docFile[d] != ^uint32(0) {
				return fmt.Errorf("%w: block id %d", ErrCorrupt, b.doc)
			}
			m.docFile[d], m.docBlock[d] = uint32(i), uint16(k+1)
		}
	}
	return nil
}

// checkTable checks the trigram table and the postings it points to:
// trigrams in increasing order, each list where the postings are (8-byte
// aligned, after the last, before the table), a sound roaring bitmap of
// that very length, not empty, of ids of documents the files name.
func (m *mapped) checkTable(tableOff uint64) error {
	le := binary.LittleEndian
	docs := uint64(len(m.files) + len(m.docFile))
	prev, end := int64(-1), uint64(0)
	bm := roaring.New()
	for i := range m.nTri {
		row := m.table[i*tableEntry:]
		tri, n, off := le.Uint32(row), uint64(le.Uint32(row[4:])), le.Uint64(row[8:])
		switch {
		case int64(tri) <= prev || tri >= 1<<24:
			return fmt.Errorf("%w: table out of order at row %d", ErrCorrupt, i)
		case off%8 != 0 || off < end || n == 0 || n > tableOff || off > tableOff-n:
			return fmt.Errorf("%w: postings of row %d at %d+%d", ErrCorrupt, i, off, n)
		}
		if p, err := bm.FromBuffer(m.data[off : off+n]); err != nil || uint64(p) != n {
			return fmt.Errorf("%w: postings of row %d: %d of %d bytes read (%v)", ErrCorrupt, i, p, n, err)
		}
		if err := bm.Validate(); err != nil || bm.IsEmpty() || uint64(bm.Maximum()) >= docs {
			return fmt.Errorf("%w: postings of row %d: ids out of range (%v)", ErrCorrupt, i, err)
		}
		prev, end = int64(tri), off+n
	}
	return nil
}

// fileOf returns the file that holds the document doc and its place in
// it (0: the first block); false for none.
func (m *mapped) fileOf(doc uint32) (file uint32, block int, ok bool) {
	if int(doc) < len(m.files) {
		return doc, 0, true
	}
	d := int(doc) - len(m.files)
	if d >= len(m.docFile) || m.docFile[d] == ^uint32(0) {
		return 0, 0, false
	}
	return m.docFile[d], int(m.docBlock[d]), true
}

// fileSet returns the files that hold a document of docs.
func (m *mapped) fileSet(docs *roaring.Bitmap) *roaring.Bitmap {
	if len(m.docFile) == 0 {
		return docs
	}
	out := docs.Clone()
	out.RemoveRange(uint64(len(m.files)), uint64(len(m.files)+len(m.docFile)))
	it := docs.Iterator()
	it.AdvanceIfNeeded(uint32(len(m.files)))
	for it.HasNext() {
		if f, _, ok := m.fileOf(it.Next()); ok {
			out.Add(f)
		}
	}
	return out
}

func (m *mapped) close() {
	if m != nil && m.data != nil {
		unix.Munmap(m.data)
		m.data = nil
	}
}

// postings returns the files that hold trigram t (empty when none).
func (m *mapped) postings(t uint32) (*roaring.Bitmap, error) {
	le := binary.LittleEndian
	i := sort.Search(m.nTri, func(i int) bool { return le.Uint32(m.table[i*tableEntry:]) >= t })
	bm := roaring.New()
	if i == m.nTri || le.Uint32(m.table[i*tableEntry:]) != t {
		return bm, nil
	}
	row := m.table[i*tableEntry:]
	n, off := uint64(le.Uint32(row[4:])), le.Uint64(row[8:])
	if off+n > uint64(len(m.data)) {
		return nil, fmt.Errorf("%w: postings", ErrCorrupt)
	}
	if _, err := bm.FromBuffer(m.data[off : off+n]); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return bm, nil
}

// guard runs f, which reads the mapped file, so that a fault there (the
// file truncated under the mapping: SIGBUS) or a panic over what it read
// is an error wrapping ErrCorrupt, not the death of the daemon and of every
// session it serves. A fault is made a panic (debug.SetPanicOnFault) for
// this goroutine only, while f runs; its cost is two calls into the
// runtime, nothing per page read (read with pread instead, a grep of a new
// pattern made a system call and a copy per trigram: bench_test.go).
func guard(f func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: reading the mapped file: %v", ErrCorrupt, p)
		}
	}()
	return f()
}

// eval returns the files that may match q; nil for every file. What it
// returns is the heap's: the mapped postings it was made from may be
// unmapped, or the file truncated, once it returns.
func (m *mapped) eval(q *Query) (bm *roaring.Bitmap, err error) {
	err = guard(func() error {
		if bm, err = m.evalMapped(q); bm != nil {
			bm.CloneCopyOnWriteContainers() // FastOr shares containers of its inputs
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return bm, nil
}

// evalMapped is eval, its result possibly holding containers of the
// mapped postings (marked copy-on-write).
func (m *mapped) evalMapped(q *Query) (*roaring.Bitmap, error) {
	if q == nil || q.Op == OpAll {
		return nil, nil
	}
	var sets []*roaring.Bitmap
	for _, t := range q.Trigrams {
		bm, err := m.postings(t)
		if err != nil {
			return nil, err
		}
		sets = append(sets, bm)
	}
	for _, s := range q.Sub {
		bm, err := m.evalMapped(s)
		if err != nil {
			return nil, err
		}
		if bm == nil { // all
			if q.Op == OpOr {
				return nil, nil
			}
			continue
		}
		sets = append(sets, bm)
	}
	switch {
	case len(sets) == 0:
		return nil, nil
	case q.Op == OpAnd:
		slices.SortFunc(sets, func(a, b *roaring.Bitmap) int { return int(a.GetCardinality()) - int(b.GetCardinality()) })
		out := sets[0].Clone()
		for _, s := range sets[1:] {
			out.And(s)
		}
		return out, nil
	}
	return roaring.FastOr(sets...), nil
}

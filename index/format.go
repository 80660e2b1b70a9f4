package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"golang.org/x/sys/unix"
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

// openIndex maps and checks the index file at path.
func openIndex(path string) (*mapped, error) {
	f, err := os.Open(path)
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
	m, err := parseIndex(data)
	if err != nil {
		unix.Munmap(data)
		return nil, err
	}
	unix.Madvise(data, unix.MADV_RANDOM)
	return m, nil
}

func parseIndex(data []byte) (*mapped, error) {
	t := data[len(data)-trailerSize:]
	le := binary.LittleEndian
	tableOff, filesOff := le.Uint64(t), le.Uint64(t[8:])
	nTri, nFiles, sum := le.Uint32(t[16:]), le.Uint32(t[20:]), le.Uint32(t[24:])
	body := uint64(len(data) - trailerSize)
	switch {
	case [8]byte(t[28:]) != magic:
		return nil, fmt.Errorf("%w: no magic", ErrCorrupt)
	case tableOff > filesOff || filesOff > body || filesOff-tableOff != uint64(nTri)*tableEntry:
		return nil, fmt.Errorf("%w: bad offsets", ErrCorrupt)
	case crc32.Checksum(data[:body+24], castagnoli) != sum:
		return nil, fmt.Errorf("%w: checksum", ErrCorrupt)
	}
	m := &mapped{data: data, table: data[tableOff:filesOff], nTri: int(nTri), byPath: make(map[string]uint32, nFiles)}
	fs := data[filesOff:body]
	for i := range nFiles {
		if len(fs) < 19 {
			return nil, fmt.Errorf("%w: files", ErrCorrupt)
		}
		n := int(le.Uint16(fs[17:]))
		if len(fs) < 21+n {
			return nil, fmt.Errorf("%w: files", ErrCorrupt)
		}
		fm := fileMeta{size: int64(le.Uint64(fs)), mtime: int64(le.Uint64(fs[8:])), flags: fs[16], path: string(fs[19 : 19+n])}
		nb := int(le.Uint16(fs[19+n:]))
		fs = fs[21+n:]
		if len(fs) < 12*nb {
			return nil, fmt.Errorf("%w: blocks", ErrCorrupt)
		}
		for k := range nb {
			b := block{doc: le.Uint32(fs[12*k:]), off: le.Uint32(fs[12*k+4:]), line: le.Uint32(fs[12*k+8:])}
			d := int(b.doc) - int(nFiles)
			if d < 0 || d > 1<<24 {
				return nil, fmt.Errorf("%w: blocks", ErrCorrupt)
			}
			for len(m.docFile) <= d {
				m.docFile = append(m.docFile, ^uint32(0))
				m.docBlock = append(m.docBlock, 0)
			}
			m.docFile[d], m.docBlock[d] = i, uint16(k+1)
			fm.blocks = append(fm.blocks, b)
		}
		fs = fs[12*nb:]
		m.files = append(m.files, fm)
		m.byPath[fm.path] = i
	}
	return m, nil
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

// eval returns the files that may match q; nil for every file.
func (m *mapped) eval(q *Query) (*roaring.Bitmap, error) {
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
		bm, err := m.eval(s)
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

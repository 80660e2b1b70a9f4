package fileindex

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"io"
	"sort"
	"sync"
)

// readBufSize is the pread size of a build. Measured on a 1 GiB file in page
// cache (BenchmarkBuildBuffer): 256 KiB is as fast as 1 MiB and 4 MiB and
// faster than 64 KiB, and the smallest buffer is the one to pool. An mmap
// variant was no faster, and a file truncated under a mapping raises SIGBUS.
const readBufSize = 256 << 10

// countChunk is how far nthNewline counts before it looks at single newlines.
const countChunk = 4096

// indexOverhead is what an index costs besides its checkpoints: the structs,
// the entry, the LRU element and the key, roughly.
const indexOverhead = 256

// castagnoli is made on first use: making it (hardware tables) was a
// twentieth of the CPU time of every toold process's start.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// index is the sparse line index of a file's first size bytes. It is never
// modified once built: an extension makes a new one, so any number of Files
// can read it without locks.
type index struct {
	spacing  int64
	size     int64
	newlines int64
	lastNL   bool    // the byte at size-1 is '\n'
	cp       []int64 // cp[k] is the number of '\n' in [0, k*spacing), for every k*spacing <= size
	tailCRC  uint32  // CRC-32C of [tailStart(), size)
	id       fileID  // the fstat of the descriptor the index was built from
}

// lines is the protocol's totalLines: a last line without '\n' counts.
func (x *index) lines() int64 {
	if x.size > 0 && !x.lastNL {
		return x.newlines + 1
	}
	return x.newlines
}

// tailStart is the last checkpoint before size: an extension re-reads from
// there, after checking that the bytes up to size did not change.
func (x *index) tailStart() int64 {
	return tailStart(x.size, x.spacing)
}

func tailStart(size, spacing int64) int64 {
	if size == 0 {
		return 0
	}
	return (size - 1) / spacing * spacing
}

// memBytes is what the index is charged against Options.MaxIndexBytes.
func (x *index) memBytes() int64 {
	return int64(cap(x.cp))*8 + indexOverhead
}

var newline = []byte{'\n'}

// scanner counts newlines forward from off, appending a checkpoint each time
// it reaches a multiple of spacing, and hashes the bytes from tail on.
type scanner struct {
	spacing int64
	off     int64 // next byte to read
	nextCP  int64 // the next checkpoint offset, > the last one appended
	count   int64 // newlines in [0, off)
	cp      []int64
	tail    int64 // hash the bytes from here on
	crc     uint32
	lastNL  bool
	feed    io.Writer // gets every block read, nil for none
}

// run reads [s.off, end) from r into buf. With a feed, each block read
// goes to the feed on a goroutine of its own while the next is read and
// counted: the outline and the index share the pass and two cores.
func (s *scanner) run(ctx context.Context, r io.ReaderAt, end int64, buf []byte) error {
	report := progressFrom(ctx)
	next, release, finish := s.pipeline(buf)
	var err error
	for s.off < end {
		if report != nil {
			report(s.off, end)
		}
		if err = ctx.Err(); err != nil {
			break
		}
		b := next()
		b = b[:min(int64(len(b)), end-s.off)]
		if err = readFull(r, b, s.off); err != nil {
			break
		}
		s.countBlock(b)
		release(b)
	}
	finish()
	if err != nil {
		return err
	}
	if report != nil {
		report(s.off, end)
	}
	return nil
}

// pipeline returns how run gets a buffer, hands one back once counted, and
// ends: without a feed, buf again and again; with one, three buffers going
// round through the feed's goroutine.
func (s *scanner) pipeline(buf []byte) (next func() []byte, release func([]byte), finish func()) {
	if s.feed == nil {
		return func() []byte { return buf }, func([]byte) {}, func() {}
	}
	free := make(chan []byte, 3)
	free <- buf
	free <- make([]byte, len(buf))
	free <- make([]byte, len(buf))
	work := make(chan []byte, 2)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range work {
			s.feed.Write(b)
			free <- b[:cap(b)]
		}
	}()
	return func() []byte { return <-free }, func(b []byte) { work <- b }, func() { close(work); <-done }
}

// countBlock counts b, the bytes at s.off, into the checkpoints and the tail's CRC.
func (s *scanner) countBlock(b []byte) {
	s.lastNL = b[len(b)-1] == '\n'
	for len(b) > 0 {
		// Pieces never cross a checkpoint, so each lies wholly before or
		// wholly after the tail's start (itself a checkpoint).
		piece := b[:min(s.nextCP-s.off, int64(len(b)))]
		s.countPiece(piece)
		b = b[len(piece):]
	}
}

// countPiece counts a piece of a block that crosses no checkpoint.
func (s *scanner) countPiece(piece []byte) {
	s.count += int64(bytes.Count(piece, newline))
	if s.off >= s.tail {
		s.crc = crc32.Update(s.crc, castagnoli(), piece)
	}
	s.off += int64(len(piece))
	if s.off == s.nextCP {
		s.cp = append(s.cp, s.count)
		s.nextCP += s.spacing
	}
}

func (s *scanner) index(id fileID) *index {
	return &index{
		spacing:  s.spacing,
		size:     s.off,
		newlines: s.count,
		lastNL:   s.lastNL,
		cp:       s.cp,
		tailCRC:  s.crc,
		id:       id,
	}
}

// build indexes the first id.size bytes of r: on several cores when the
// file is large and no Feed wants its bytes in order.
func build(ctx context.Context, r io.ReaderAt, id fileID, spacing int64, buf []byte) (*index, error) {
	fd := feedFrom(ctx)
	if n := workers(id.size, spacing); n > 1 && fd == nil {
		return buildParallel(ctx, r, id, spacing, buf, n)
	}
	cp := make([]int64, 1, id.size/spacing+1)
	s := scanner{spacing: spacing, nextCP: spacing, cp: cp, tail: tailStart(id.size, spacing)}
	if fd != nil {
		s.feed = fd.W
	}
	if err := s.run(ctx, r, id.size, buf); err != nil {
		return nil, err
	}
	if fd != nil {
		fd.Fed = true
	}
	return s.index(id), nil
}

// errTailChanged says an extension found the old tail rewritten.
var errTailChanged = errors.New("fileindex: bytes before the old end changed")

// extend indexes r, which has grown from old.size to id.size, from old's last
// checkpoint on. It fails with errTailChanged when the bytes from that
// checkpoint to the old size differ from those old was built from.
func extend(ctx context.Context, r io.ReaderAt, old *index, id fileID, buf []byte) (*index, error) {
	ts := old.tailStart()
	tail := buf[:old.size-ts]
	if err := readFull(r, tail, ts); err != nil {
		return nil, err
	}
	if crc32.Checksum(tail, castagnoli()) != old.tailCRC {
		return nil, errTailChanged
	}
	return resume(ctx, r, old, ts, id, buf)
}

// prefix derives the index of r's first id.size bytes from old, the index of
// a longer state of the same inode: for a descriptor opened before the file
// last grew. Only the block holding the new end is read.
func prefix(ctx context.Context, r io.ReaderAt, old *index, id fileID, buf []byte) (*index, error) {
	return resume(ctx, r, old, tailStart(id.size, old.spacing), id, buf)
}

// resume indexes r up to id.size keeping old's checkpoints up to from (a
// checkpoint old holds) and scanning on from there.
func resume(ctx context.Context, r io.ReaderAt, old *index, from int64, id fileID, buf []byte) (*index, error) {
	k := from / old.spacing
	cp := make([]int64, k+1, id.size/old.spacing+1)
	copy(cp, old.cp[:k+1])
	s := scanner{
		spacing: old.spacing,
		off:     from,
		nextCP:  from + old.spacing,
		count:   cp[k],
		cp:      cp,
		tail:    tailStart(id.size, old.spacing),
	}
	if err := s.run(ctx, r, id.size, buf); err != nil {
		return nil, err
	}
	return s.index(id), nil
}

// lineStart returns the byte offset where line n (1-based) starts; n ==
// lines()+1 gives size.
func (x *index) lineStart(r io.ReaderAt, buf []byte, n int64) (int64, error) {
	if n < 1 || n > x.lines()+1 {
		return 0, ErrOutOfRange
	}
	if n == 1 {
		return 0, nil
	}
	if n == x.lines()+1 {
		return x.size, nil
	}
	// Line n starts just after the (n-1)th newline, which lies in the block
	// of the last checkpoint with fewer than n-1 newlines before it.
	want := n - 1
	k := sort.Search(len(x.cp), func(i int) bool { return x.cp[i] >= want }) - 1
	off := int64(k) * x.spacing
	b := buf[:min(x.spacing, x.size-off)]
	if err := readFull(r, b, off); err != nil {
		return 0, err
	}
	j := nthNewline(b, want-x.cp[k])
	if j < 0 {
		return 0, ErrChanged
	}
	return off + int64(j) + 1, nil
}

// lineAt returns the line that holds byte off and where it starts.
func (x *index) lineAt(r io.ReaderAt, buf []byte, off int64) (int64, int64, error) {
	if off < 0 || off >= x.size {
		return 0, 0, ErrOutOfRange
	}
	k := off / x.spacing
	base := k * x.spacing
	b := buf[:off-base]
	if err := readFull(r, b, base); err != nil {
		return 0, 0, err
	}
	n := x.cp[k] + int64(bytes.Count(b, newline)) + 1
	if j := bytes.LastIndexByte(b, '\n'); j >= 0 {
		return n, base + int64(j) + 1, nil
	}
	// The line started before this block.
	start, err := x.lineStart(r, buf, n)
	if err != nil {
		return 0, 0, err
	}
	return n, start, nil
}

// nthNewline returns the index in b of its nth '\n' (n >= 1), or -1. It
// counts a chunk at a time so a block of short lines is not walked one
// newline at a time.
func nthNewline(b []byte, n int64) int {
	base := 0
	for len(b) > 0 {
		w := min(countChunk, len(b))
		if c := int64(bytes.Count(b[:w], newline)); c < n {
			n -= c
			b, base = b[w:], base+w
			continue
		}
		for {
			j := bytes.IndexByte(b, '\n')
			n--
			if n == 0 {
				return base + j
			}
			b, base = b[j+1:], base+j+1
		}
	}
	return -1
}

// readFull reads len(b) bytes at off; a short read means the file shrank
// under the index.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	if len(b) == 0 {
		return nil
	}
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return ErrChanged
	}
	return err
}

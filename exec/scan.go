package exec

import (
	"bytes"
	"os"
	"sync/atomic"
	"time"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/preview"
	"github.com/toold/toold/truncate"
)

// scanChunks is how many chunks a stream's scanner may hold before the
// capture waits for it: reads go on while it catches up, in bounded memory.
const scanChunks = 4

// scanner cleans a stream's lines as they pass (truncate.LineStream) and
// runs the highlight detector over them, on a goroutine of its own beside
// the capture's reads, counts and spool writes, so that the detector and
// the pipe copy each have a core.
//
// Until the stream's spool holds all of it, the capture hands the scanner a
// copy of each chunk (it reuses its read buffer), in one of at most
// scanChunks recycled buffers, and waits when they are all taken. Once the
// spool holds the output (follow), the scanner reads it from the spool file
// instead, as far as the capture has written it (avail): the reads go on
// at a plain copy's pace however far the detector falls behind, in bounded
// memory, and nothing is copied twice (the spool's pages are read once
// more, where a hand-off would copy each chunk). The capture owns it:
// finish ends the goroutine.
type scanner struct {
	ch   chan scanMsg
	free chan []byte
	done chan struct{}
	n    int // buffers made so far

	// Bytes skipped but not yet told to the goroutine, and their newlines.
	skipBytes, skipLines int64
	skipped              bool // some bytes were skipped

	following bool          // the goroutine reads the spool (the capture's side)
	poked     int64         // avail when the goroutine was last woken (the capture's side)
	avail     atomic.Int64  // bytes of the spool file it may read
	more      chan struct{} // a poke when avail grows
	stop      atomic.Bool   // read the rest only to count its lines (cancelled)
	broken    bool          // the spool file could not be read: nothing found counts (the goroutine's)

	// Owned by the goroutine until done is closed.
	ls    *preview.LineScan
	res   highlight.Result
	known []truncate.KnownLine
}

// scanMsg is a chunk to scan, a run of bytes skipped unread, or the spool
// file to read on from byte from (follow).
type scanMsg struct {
	data                 []byte
	skipBytes, skipLines int64
	follow               *os.File
	from                 int64
}

func newScanner(opt truncate.PreviewOptions, keep int) *scanner {
	s := &scanner{
		ch:   make(chan scanMsg, scanChunks),
		free: make(chan []byte, scanChunks),
		done: make(chan struct{}),
		more: make(chan struct{}, 1),
		ls:   preview.NewLineScan(opt, keep),
	}
	go s.run()
	return s
}

func (s *scanner) run() {
	defer close(s.done)
	for m := range s.ch {
		switch {
		case m.follow != nil:
			s.tail(m.follow, m.from)
		case m.data == nil:
			s.ls.Skip(m.skipBytes, m.skipLines)
		default:
			s.ls.Write(m.data)
			s.free <- m.data[:0]
		}
	}
	s.res, s.known = s.ls.Finish()
	if s.broken {
		s.res, s.known = highlight.Result{}, nil
	}
}

// tail scans the spool file f from byte pos as the capture writes it, until
// the capture's finish: a skip message for the bytes the spool dropped,
// then the channel's close, each after the last store to avail. It closes f.
func (s *scanner) tail(f *os.File, pos int64) {
	defer f.Close()
	buf := make([]byte, preview.ScanBlock)
	for {
		if !s.readTo(f, &pos, buf) {
			for range s.ch { // a loss: wait for the end, searching nothing
			}
			return
		}
		select {
		case <-s.more:
		case m, ok := <-s.ch:
			// The capture has finished writing: read the rest first.
			if !s.readTo(f, &pos, buf) || !ok {
				for range s.ch {
				}
				return
			}
			s.ls.Skip(m.skipBytes, m.skipLines)
		}
	}
}

// readTo scans f from *pos to avail (or only counts its lines once stop
// is set). It reports false when f cannot be read: the scan is then lost.
func (s *scanner) readTo(f *os.File, pos *int64, buf []byte) bool {
	for avail := s.avail.Load(); *pos < avail; avail = s.avail.Load() {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), avail-*pos)], *pos)
		if k == 0 && err != nil {
			// A regular file held open does not fail a read of bytes
			// written to it; if it does, the numbering past here is
			// unknown: report nothing rather than lines misnumbered.
			s.broken = true
			return false
		}
		if s.stop.Load() {
			s.ls.Skip(int64(k), int64(bytes.Count(buf[:k], []byte{'\n'})))
		} else {
			s.ls.Write(buf[:k])
		}
		*pos += int64(k)
	}
	return true
}

// follow makes the goroutine read the spool file sp from byte from on,
// instead of copies handed to it; false when the file cannot be opened
// (or is not the file written: the command swapped it).
func (s *scanner) follow(sp SpoolFile, from, avail int64) bool {
	f, err := sp.Open()
	if err != nil {
		return false
	}
	s.following = true
	s.publish(avail)
	s.ch <- scanMsg{follow: f, from: from}
	return true
}

// publish tells a following goroutine that the spool holds avail bytes. It
// is woken once a block more is there, not for each chunk: it reads in
// blocks, and the chunks of a command that prints a line at a time would
// each cost it a wake-up and a read. finish wakes it for the rest.
func (s *scanner) publish(avail int64) {
	s.avail.Store(avail)
	if avail-s.poked < preview.ScanBlock {
		return
	}
	s.poked = avail
	select {
	case s.more <- struct{}{}:
	default:
	}
}

// skip counts n bytes holding newlines that the spool dropped: a following
// goroutine skips them once it has read all the spool holds.
func (s *scanner) skip(n, newlines int64) {
	s.skipBytes += n
	s.skipLines += newlines
	s.skipped = true
}

// write hands the scanner a copy of p, newlines of which are '\n'; it
// waits when scanChunks copies are still being scanned. When skippable, p
// is skipped: counted (lines numbered on), not read, so that the reads go
// on at the pace of a plain copy. It returns how long it waited.
func (s *scanner) write(p []byte, newlines int64, skippable bool) time.Duration {
	if s.skipBytes > 0 || skippable {
		s.skipBytes += int64(len(p))
		s.skipLines += newlines
		s.skipped = true
		select {
		case s.ch <- scanMsg{skipBytes: s.skipBytes, skipLines: s.skipLines}:
			s.skipBytes, s.skipLines = 0, 0
		default:
		}
		return 0
	}
	var buf []byte
	var waited time.Duration
	select {
	case buf = <-s.free:
	default:
		if s.n < scanChunks {
			s.n++
		} else {
			start := time.Now()
			buf = <-s.free
			waited = time.Since(start)
		}
	}
	msg := scanMsg{data: append(buf, p...)}
	select {
	case s.ch <- msg:
	default:
		start := time.Now()
		s.ch <- msg
		waited += time.Since(start)
	}
	return waited
}

// finish waits for the scanner to end and returns what it found and the
// long lines it saw pass.
func (s *scanner) finish() (highlight.Result, []truncate.KnownLine) {
	if s.skipBytes > 0 {
		s.ch <- scanMsg{skipBytes: s.skipBytes, skipLines: s.skipLines}
	}
	close(s.ch)
	<-s.done
	if s.broken {
		s.skipped = true
	}
	return s.res, s.known
}

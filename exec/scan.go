package exec

import (
	"time"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/truncate"
)

// scanChunks is how many chunks a stream's scanner may hold before the
// capture waits for it: reads go on while it catches up, in bounded memory.
const scanChunks = 4

// scanner cleans a stream's lines as they pass (truncate.LineStream) and
// runs the highlight detector over them, on a goroutine of its own so that
// the capture's reads, counts and spool writes do not wait for it. It
// copies each chunk (the capture reuses its read buffer) into one of at
// most scanChunks buffers. The capture owns it: finish ends the goroutine.
type scanner struct {
	ch   chan scanMsg
	free chan []byte
	done chan struct{}
	n    int // buffers made so far

	// Bytes skipped but not yet told to the goroutine, and their newlines.
	skipBytes, skipLines int64
	skipped              bool // some bytes were skipped

	// Owned by the goroutine until done is closed.
	ls    *lineScan
	res   highlight.Result
	known []truncate.KnownLine
}

// scanMsg is a chunk to scan, or a run of bytes skipped unread.
type scanMsg struct {
	data                 []byte
	skipBytes, skipLines int64
}

func newScanner(opt truncate.PreviewOptions, keep int) *scanner {
	s := &scanner{
		ch:   make(chan scanMsg, scanChunks),
		free: make(chan []byte, scanChunks),
		done: make(chan struct{}),
		ls:   newLineScan(opt, keep),
	}
	go s.run()
	return s
}

func (s *scanner) run() {
	defer close(s.done)
	for m := range s.ch {
		if m.data == nil {
			s.ls.skip(m.skipBytes, m.skipLines)
			continue
		}
		s.ls.write(m.data)
		s.free <- m.data[:0]
	}
	s.res, s.known = s.ls.finish()
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
	return s.res, s.known
}

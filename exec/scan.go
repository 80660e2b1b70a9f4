package exec

import (
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
	ch   chan []byte
	free chan []byte
	done chan struct{}
	n    int // buffers made so far

	// Owned by the goroutine until done is closed.
	ls  truncate.LineStream
	det *highlight.Detector
	res highlight.Result
}

func newScanner(clean bool, maxLine int, prefixLen int64) *scanner {
	s := &scanner{
		ch:   make(chan []byte, scanChunks),
		free: make(chan []byte, scanChunks),
		done: make(chan struct{}),
		ls:   truncate.LineStream{Clean: clean, MaxLine: maxLine, LongLine: prefixLen / 4, PrefixLen: prefixLen},
		det:  highlight.New(highlight.Options{MaxLineBytes: maxLine}),
	}
	go s.run()
	return s
}

func (s *scanner) run() {
	defer close(s.done)
	block := func(first int64, lines []byte) { s.det.Block(first, lines) }
	for p := range s.ch {
		s.ls.Write(p, block)
		s.free <- p[:0]
	}
	s.ls.Close(block)
	s.res = s.det.Finish()
}

// write hands the scanner a copy of p; it waits when scanChunks copies are
// still being scanned.
func (s *scanner) write(p []byte) {
	var buf []byte
	select {
	case buf = <-s.free:
	default:
		if s.n < scanChunks {
			s.n++
		} else {
			buf = <-s.free
		}
	}
	s.ch <- append(buf, p...)
}

// finish waits for the scanner to end and returns what it found and the
// long lines it saw pass.
func (s *scanner) finish() (highlight.Result, []truncate.KnownLine) {
	close(s.ch)
	<-s.done
	var known []truncate.KnownLine
	if k := s.ls.First; k != nil {
		known = append(known, *k)
	}
	if k := s.ls.Last; k != nil && k != s.ls.First {
		known = append(known, *k)
	}
	return s.res, known
}

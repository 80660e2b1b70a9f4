package truncate

import "bytes"

// KnownLine is a line of a stream too long for the bytes a capture keeps
// of it, remembered by LineStream as it passed: where it was and its
// current state (after its last \r redraw, cleaned when the stream is),
// cut at LineStream.MaxLine bytes.
type KnownLine struct {
	Line       int64  // its number, 1-based
	Start, End int64  // its raw bytes in the stream, End exclusive (past its '\n', if any)
	Text       []byte // its shown state, with its line ending; cut short when Cut
	Cut        bool   // Text holds only the beginning of that state
}

// LineStream cuts a stream into lines as it passes, in bounded memory, so
// that clean-up does not wait for the end: a line is held only while it is
// incomplete, and then as its current state (what follows its last \r
// redraw), at most MaxLine bytes of it. Runs of whole lines are handed to a
// callback as they complete, cleaned when Clean is set. The zero value
// needs Clean, MaxLine and LongLine set before the first Write; it is used
// by one goroutine at a time.
type LineStream struct {
	Clean    bool  // hand lines over cleaned (CleanLine)
	MaxLine  int   // bytes kept of an incomplete line (its current state); <= 0: 8192
	LongLine int64 // lines at least this long are remembered (First, Last); <= 0: 16 KiB
	// PrefixLen is how much of the stream its capture keeps from the start:
	// First is the first long line that ends past it.
	PrefixLen int64

	next    int64  // number of the line being read, 1-based
	off     int64  // raw bytes so far
	carry   []byte // the incomplete line's current state
	start   int64  // where it began
	cut     bool   // carry was cut at MaxLine
	cr      bool   // the last byte added was a \r
	gap     bool   // the current line began in skipped bytes: not whole, not handed over
	scratch []byte // cleaned runs of lines

	// First and Last are long lines: the first that ends past PrefixLen
	// and the last one. Nil when none.
	First, Last *KnownLine
}

// Write takes the next bytes of the stream and hands the lines it completes
// to block, in runs of whole lines, the first of a run numbered first. A run
// is only valid during the call.
func (s *LineStream) Write(p []byte, block func(first int64, lines []byte)) {
	if s.next == 0 {
		s.next = 1
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.add(p)
			s.off += int64(len(p))
			return
		}
		if len(s.carry) > 0 || s.off > s.start || s.cut || s.gap {
			// The end of the incomplete line.
			s.add(p[:i+1])
			s.off += int64(i + 1)
			s.emitCarry(block)
			p = p[i+1:]
			continue
		}
		// Whole lines from here to the last '\n'.
		j := bytes.LastIndexByte(p, '\n') + 1
		s.run(p[:j], block)
		s.off += int64(j)
		s.start = s.off
		p = p[j:]
	}
}

// Close ends the stream: an incomplete last line is handed over on its own.
func (s *LineStream) Close(block func(first int64, lines []byte)) {
	if s.next == 0 {
		s.next = 1
	}
	if s.off > s.start || s.gap {
		s.emitCarry(block)
	}
}

// add appends q to the incomplete line: what follows a \r redraw replaces
// what came before it (a \r before '\n' or at q's end decides nothing yet).
func (s *LineStream) add(q []byte) {
	if len(q) == 0 {
		return
	}
	if s.Clean {
		if s.cr && q[0] != '\r' && q[0] != '\n' {
			s.carry, s.cut = s.carry[:0], false // redrawn across two writes
		}
		s.cr = q[len(q)-1] == '\r'
		if k := redraw(q); k >= 0 {
			s.carry, s.cut = s.carry[:0], false
			q = q[k:]
		}
	}
	if room := s.maxLine() - len(s.carry); len(q) > room {
		// Keep the line ending, if q has it.
		body, ending := SplitEnding(q)
		if k := CutBack(body, room); room > 0 && k <= room {
			s.carry = append(s.carry, body[:k]...)
		}
		s.carry = append(s.carry, ending...)
		s.cut = true
		return
	}
	s.carry = append(s.carry, q...)
}

// redraw returns where the text after q's last redraw starts: past a \r
// followed by a byte other than \r and \n; -1 when q has none.
func redraw(q []byte) int {
	for i := len(q) - 2; i >= 0; i-- {
		if i = bytes.LastIndexByte(q[:i+1], '\r'); i < 0 {
			return -1
		}
		if c := q[i+1]; c != '\r' && c != '\n' {
			return i + 1
		}
	}
	return -1
}

// Skip passes n bytes holding newlines '\n' without reading them: lines
// are counted, none of them is handed over, nor the lines the skip cuts at
// either end. A capture skips when its reader must not wait (past the
// spool's cap, when the scanner falls behind).
func (s *LineStream) Skip(n, newlines int64) {
	if s.next == 0 {
		s.next = 1
	}
	s.off += n
	s.next += newlines
	s.carry, s.cut, s.cr, s.start, s.gap = s.carry[:0], false, false, s.off, true
}

// emitCarry hands over the incomplete line, now ended, and remembers it
// when it is long; a line cut by a skip is only counted.
func (s *LineStream) emitCarry(block func(int64, []byte)) {
	if s.gap {
		s.next++
		s.carry, s.cut, s.cr, s.start, s.gap = s.carry[:0], false, false, s.off, false
		return
	}
	line := s.carry
	if s.Clean {
		line = CleanLine(line)
	}
	block(s.next, line)
	s.remember(s.next, s.start, s.off, line, s.cut)
	s.next++
	s.carry, s.cut, s.cr, s.start = s.carry[:0], false, false, s.off
}

// run hands over whole lines, cleaned when needed, and remembers the long
// ones among them.
func (s *LineStream) run(lines []byte, block func(int64, []byte)) {
	if int64(len(lines)) >= s.longLine() {
		for i := 0; i < len(lines); {
			j := i + bytes.IndexByte(lines[i:], '\n') + 1
			if int64(j-i) >= s.longLine() {
				l := lines[i:j]
				if s.Clean {
					l = CleanLine(l)
				}
				cut := false
				if limit := s.maxLine(); len(l) > limit {
					body, ending := SplitEnding(l)
					l = append(append([]byte{}, body[:CutBack(body, limit)]...), ending...)
					cut = true
				}
				s.remember(s.next+int64(bytes.Count(lines[:i], []byte{'\n'})), s.off+int64(i), s.off+int64(j), l, cut)
			}
			i = j
		}
	}
	first := s.next
	s.next += int64(bytes.Count(lines, []byte{'\n'}))
	if !s.Clean || bytes.IndexByte(lines, '\r') < 0 && bytes.IndexByte(lines, 0x1b) < 0 {
		block(first, lines)
		return
	}
	s.scratch = s.scratch[:0]
	for i := 0; i < len(lines); {
		j := i + bytes.IndexByte(lines[i:], '\n') + 1
		s.scratch = append(s.scratch, CleanLine(lines[i:j])...)
		i = j
	}
	block(first, s.scratch)
}

func (s *LineStream) longLine() int64 {
	if s.LongLine <= 0 {
		return 16 << 10
	}
	return s.LongLine
}

func (s *LineStream) maxLine() int {
	if s.MaxLine <= 0 {
		return 8192
	}
	return s.MaxLine
}

// remember keeps line n when it is long: as First when it is the first to
// end past PrefixLen, and as Last.
func (s *LineStream) remember(n, start, end int64, text []byte, cut bool) {
	if end-start < s.longLine() {
		return
	}
	k := &KnownLine{Line: n, Start: start, End: end, Text: append([]byte{}, text...), Cut: cut}
	if s.First == nil && end > s.PrefixLen {
		s.First = k
	}
	s.Last = k
}

package exec

import (
	"bytes"
	"os"
	"sync"
	"time"

	"github.com/toold/toold/truncate"
)

// Observer follows a command while it runs: a progress report, or the
// reader of a background process.
type Observer interface {
	// Started is called once, when the command runs and before any Output,
	// with its process group id and, when Spec.KeepStdin is set, the write
	// end of its stdin (else nil). Run closes stdin once the command has
	// exited; writes after that fail with os.ErrClosed.
	Started(pgid int, stdin *os.File)
	// Output is called with each chunk read from stream ("stdout" or
	// "stderr"), in order, after the chunk went to the spool, on the
	// stream's reader goroutine: it must be quick and must not keep p.
	Output(stream string, p []byte)
}

// meterLine bounds the bytes a Meter keeps of a line: its end, which is
// where a redrawn progress bar shows its final state.
const meterLine = 1024

// meterChars is how many characters of the newest line a Snapshot shows.
const meterChars = 200

// Meter is an Observer that counts a running command's output for progress
// reports: lines and bytes per stream and the newest line. Its zero value is
// ready to use; it is safe for concurrent use.
type Meter struct {
	mu      sync.Mutex
	start   time.Time
	streams [2]meterStream // stdout, stderr
	newest  int            // the stream written last
}

// meterStream is one stream's counts and its newest lines.
type meterStream struct {
	bytes, newlines int64
	last            byte
	cur             []byte // the end of the line being written
	done            []byte // the end of the last complete line
}

// Count is how much one stream has printed.
type Count struct {
	Lines int64 // a last line without a newline counts
	Bytes int64
}

// Snapshot is a Meter's reading.
type Snapshot struct {
	Elapsed        time.Duration // since Started
	Stdout, Stderr Count
	// LastLine is the newest line of either stream, cleaned (escapes
	// stripped, the final state of a redrawn line) and clipped: the line
	// being written if it shows anything yet, else the last complete one.
	LastLine string
}

// Started implements Observer.
func (m *Meter) Started(int, *os.File) {
	m.mu.Lock()
	m.start = time.Now()
	m.mu.Unlock()
}

// Output implements Observer.
func (m *Meter) Output(stream string, p []byte) {
	if len(p) == 0 {
		return
	}
	i := 0
	if stream == "stderr" {
		i = 1
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.newest = i
	s := &m.streams[i]
	s.bytes += int64(len(p))
	s.newlines += int64(bytes.Count(p, newline))
	s.last = p[len(p)-1]
	j := bytes.LastIndexByte(p, '\n')
	if j < 0 {
		s.cur = keepEnd(append(s.cur, p...))
		return
	}
	if k := bytes.LastIndexByte(p[:j], '\n'); k >= 0 {
		s.done = keepEnd(append(s.done[:0], p[k+1:j]...))
	} else {
		s.done = keepEnd(append(append(s.done[:0], s.cur...), p[:j]...))
	}
	s.cur = keepEnd(append(s.cur[:0], p[j+1:]...))
}

var newline = []byte{'\n'}

// keepEnd trims b to its last meterLine bytes, in place.
func keepEnd(b []byte) []byte {
	if len(b) <= meterLine {
		return b
	}
	return b[:copy(b, b[len(b)-meterLine:])]
}

// Snapshot returns the counts so far.
func (m *Meter) Snapshot() Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	var sn Snapshot
	if !m.start.IsZero() {
		sn.Elapsed = time.Since(m.start)
	}
	for i, c := range []*Count{&sn.Stdout, &sn.Stderr} {
		s := &m.streams[i]
		c.Bytes, c.Lines = s.bytes, s.newlines
		if s.bytes > 0 && s.last != '\n' {
			c.Lines++
		}
	}
	s := &m.streams[m.newest]
	line, _ := truncate.ShowLine(s.cur, true, meterChars)
	if line == "" {
		line, _ = truncate.ShowLine(s.done, true, meterChars)
	}
	sn.LastLine = line
	return sn
}

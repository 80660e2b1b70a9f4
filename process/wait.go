package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"time"

	"github.com/toold/toold/truncate"
)

// Reasons a Wait returns.
const (
	ReasonExit    = "exit"
	ReasonPattern = "pattern"
	ReasonIdle    = "idle"
	ReasonTimeout = "timeout"
	ReasonInput   = "input"
)

// Until says what ends a Wait besides the exit; its zero value waits for
// the exit alone.
type Until struct {
	// Pattern, when set, ends the wait at a line of either stream that
	// matches it, cleaned as the preview cleans lines: from where the last
	// read ended, so a line printed before the wait counts if no read has
	// returned it yet. A line still being written (a prompt) counts too.
	Pattern *regexp.Regexp
	// Idle, when positive, ends the wait once no output has come for that
	// long (counted from the last output, or from the start).
	Idle time.Duration
	// Timeout, when positive, ends the wait after that long.
	Timeout time.Duration
}

// maxScanLine bounds the part of a long line a pattern is matched against:
// its first bytes.
const maxScanLine = 64 << 10

// Wait blocks until the process exits, waits for input or u says, and
// returns why: one of the Reason constants, or ctx's error. A pattern
// seen in output printed before the exit wins over the exit, which wins
// over input.
func (p *Proc) Wait(ctx context.Context, u Until) (string, error) {
	var deadline <-chan time.Time
	if u.Timeout > 0 {
		t := time.NewTimer(u.Timeout)
		defer t.Stop()
		deadline = t.C
	}
	p.mu.Lock()
	sc := &patternScan{re: u.Pattern}
	for i := range sc.off {
		sc.off[i] = p.cursor.at(i)
	}
	p.mu.Unlock()
	idle := time.NewTimer(time.Hour)
	defer idle.Stop()
	for {
		p.mu.Lock()
		changed := p.changedLocked()
		st, last, exited, waiting := p.streams, p.lastOutput, p.result != nil, p.waiting != nil
		p.mu.Unlock()
		if sc.re != nil {
			found, err := sc.scan(&st)
			if err != nil {
				return "", err
			}
			if found {
				return ReasonPattern, nil
			}
		}
		if exited {
			return ReasonExit, nil
		}
		if waiting {
			return ReasonInput, nil
		}
		var idleC <-chan time.Time
		if u.Idle > 0 {
			left := u.Idle - time.Since(last)
			if left <= 0 {
				return ReasonIdle, nil
			}
			idle.Reset(left)
			idleC = idle.C
		}
		select {
		case <-changed:
		case <-idleC:
		case <-deadline:
			return ReasonTimeout, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// patternScan matches the lines of both streams against re as they come.
type patternScan struct {
	re    *regexp.Regexp
	off   [2]int64  // scanned up to here
	carry [2][]byte // the start of the line in progress, up to maxScanLine
	buf   []byte
}

// scan reads each stream's new output from its spool and reports whether a
// line matched.
func (sc *patternScan) scan(st *[2]streamState) (bool, error) {
	for i := range st {
		s := &st[i]
		if s.written <= sc.off[i] || s.spool == nil {
			continue
		}
		found, err := sc.scanStream(i, s)
		if found || err != nil {
			return found, err
		}
	}
	return false, nil
}

func (sc *patternScan) scanStream(i int, s *streamState) (bool, error) {
	f, err := s.spool.Open()
	if errors.Is(err, fs.ErrNotExist) {
		sc.off[i] = s.written // nothing kept to match
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("process: reading the output of spool %s: %w", s.spool.ID(), err)
	}
	defer f.Close()
	if sc.buf == nil {
		sc.buf = make([]byte, readBlock)
	}
	for sc.off[i] < s.written {
		b := sc.buf[:min(int64(len(sc.buf)), s.written-sc.off[i])]
		n, _ := f.ReadAt(b, sc.off[i])
		if n == 0 {
			break // past the spool's cap: nothing more to match
		}
		sc.off[i] += int64(n)
		for b = b[:n]; len(b) > 0; {
			j := bytes.IndexByte(b, '\n')
			if j < 0 {
				sc.carry[i] = appendCapped(sc.carry[i], b)
				break
			}
			line := appendCapped(sc.carry[i], b[:j])
			sc.carry[i] = sc.carry[i][:0]
			b = b[j+1:]
			if sc.re.Match(truncate.CleanLine(line)) {
				return true, nil
			}
		}
	}
	// A line still being written: a prompt waits for its answer.
	return len(sc.carry[i]) > 0 && sc.re.Match(truncate.CleanLine(sc.carry[i])), nil
}

func appendCapped(dst, b []byte) []byte {
	return append(dst, b[:min(len(b), max(0, maxScanLine-len(dst)))]...)
}

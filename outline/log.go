package outline

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/protocol"
)

// logMaxBuckets bounds the time buckets held; an outline of that many fits
// in a few KB.
const logMaxBuckets = 24

// logUntimed is how many lines without any timestamp make a log be
// bucketed by lines instead of by time.
const logUntimed = 1000

// widths are the bucket widths tried, in seconds: each a multiple of the
// one before, so that widening merges whole buckets.
var widths = []int64{1, 5, 10, 30, 60, 300, 600, 1800, 3600, 3 * 3600, 6 * 3600, 86400, 7 * 86400, 28 * 86400, 364 * 86400}

// Levels, in the order they are reported.
var levelNames = [...]string{"FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"}

const (
	lvFatal = iota
	lvError
	lvWarn
	lvInfo
	lvDebug
	lvTrace
	lvNone = -1
)

// logScan outlines a log by time buckets: runs of lines whose timestamps
// fall in the same window, the window widening (1 s up to a year) so that at
// most logMaxBuckets remain. Lines without a timestamp (stack traces,
// continuations) belong to the bucket they follow. Each bucket has its line
// range, line count, lines per level and its most frequent kinds of error
// (error lines normalized as exec's highlights key them: numbers, hex and
// paths folded). A log with no timestamp in its first lines is bucketed by
// runs of lines.
type logScan struct {
	lineSplitter
	buckets []*bucket
	width   int // index in widths
	timed   bool
	perLine int64 // lines per bucket when untimed
}

type bucket struct {
	key           int64
	from, to      int64 // first and last time seen
	timed         bool
	line, endLine int64
	levels        [len(levelNames)]int64
	kinds         kindCounter
}

func newLog(Options) *logScan {
	l := &logScan{perLine: logUntimed}
	l.fn = l.line
	return l
}

func (l *logScan) line(n int64, line []byte) {
	t, ok := parseTime(line)
	if ok {
		l.timed = true
	}
	cur := l.cur()
	switch {
	case cur == nil:
		cur = l.open(n, t, ok)
	case ok && cur.timed && l.key(t) != cur.key && (t < cur.from || t > cur.to):
		cur = l.open(n, t, ok)
	case ok && !cur.timed:
		cur.timed, cur.from, cur.to, cur.key = true, t, t, l.key(t)
	case !l.timed && n > logUntimed && n-cur.line >= l.perLine:
		cur = l.open(n, 0, false)
	}
	if ok {
		cur.from, cur.to = min(cur.from, t), max(cur.to, t)
	}
	cur.endLine = n
	lv, at := level(line)
	if lv == lvNone {
		return
	}
	cur.levels[lv]++
	if lv <= lvError {
		cur.kinds.add(highlight.Key(bytes.TrimLeft(line[at:], ":]) \t")), n)
	}
}

func (l *logScan) cur() *bucket {
	if len(l.buckets) == 0 {
		return nil
	}
	return l.buckets[len(l.buckets)-1]
}

func (l *logScan) key(t int64) int64 {
	w := widths[l.width]
	if t < 0 {
		return (t - w + 1) / w
	}
	return t / w
}

func (l *logScan) open(n, t int64, timed bool) *bucket {
	b := &bucket{line: n, endLine: n, timed: timed, from: t, to: t}
	if timed {
		b.key = l.key(t)
	}
	l.buckets = append(l.buckets, b)
	for len(l.buckets) > logMaxBuckets {
		l.widen()
	}
	return l.cur()
}

// widen merges buckets: by a wider window while there is one, else pairs.
func (l *logScan) widen() {
	if l.timed && l.width+1 < len(widths) {
		l.width++
		l.merge(func(a, b *bucket) bool { return a.timed && b.timed && l.key(a.from) == l.key(b.from) || !b.timed })
		return
	}
	l.perLine *= 2
	i := 0
	l.merge(func(a, b *bucket) bool { i++; return i%2 == 1 })
}

// merge joins each bucket to the one before when same says so.
func (l *logScan) merge(same func(a, b *bucket) bool) {
	out := l.buckets[:1]
	for _, b := range l.buckets[1:] {
		a := out[len(out)-1]
		if !same(a, b) {
			out = append(out, b)
			continue
		}
		a.endLine = b.endLine
		if b.timed {
			if !a.timed {
				a.from, a.to, a.timed = b.from, b.to, true
			}
			a.from, a.to = min(a.from, b.from), max(a.to, b.to)
		}
		for i := range a.levels {
			a.levels[i] += b.levels[i]
		}
		a.kinds.merge(&b.kinds)
	}
	clear(l.buckets[len(out):])
	l.buckets = out
	for _, b := range l.buckets {
		if b.timed {
			b.key = l.key(b.from)
		}
	}
}

func (l *logScan) Finish(totalLines int64) *Outline {
	l.flush()
	o := &Outline{Format: Log, Entries: make([]Entry, 0, len(l.buckets))}
	var errs int64
	for _, b := range l.buckets {
		e := Entry{Line: b.line, EndLine: b.endLine, Depth: 1, Kind: "lines", Lines: b.endLine - b.line + 1,
			Name: fmt.Sprintf("lines %d-%d", b.line, b.endLine)}
		if b.timed {
			e.Kind, e.Name = "time", span(b.from, b.to)
		}
		for i, c := range b.levels {
			if c > 0 {
				if e.Levels == nil {
					e.Levels = map[string]int64{}
				}
				e.Levels[levelNames[i]] = c
			}
		}
		errs += b.levels[lvError] + b.levels[lvFatal]
		e.Kinds = b.kinds.top(2)
		o.Entries = append(o.Entries, e)
	}
	if n := len(o.Entries); n > 0 {
		o.Entries[n-1].EndLine = max(o.Entries[n-1].EndLine, totalLines)
		o.Entries[n-1].Lines = o.Entries[n-1].EndLine - o.Entries[n-1].Line + 1
	}
	o.TotalEntries = len(o.Entries)
	o.Summary = l.summary(o.Entries, errs)
	return o
}

// summary names the buckets with the most error lines.
func (l *logScan) summary(es []Entry, errs int64) string {
	if errs == 0 {
		return ""
	}
	idx := make([]int, len(es))
	for i := range idx {
		idx[i] = i
	}
	errOf := func(e Entry) int64 { return e.Levels["ERROR"] + e.Levels["FATAL"] }
	sort.SliceStable(idx, func(a, b int) bool { return errOf(es[idx[a]]) > errOf(es[idx[b]]) })
	var top []string
	for _, i := range idx[:min(3, len(idx))] {
		if c := errOf(es[i]); c > 0 {
			top = append(top, fmt.Sprintf("%s (%d, lines %d-%d)", es[i].Name, c, es[i].Line, es[i].EndLine))
		}
	}
	return fmt.Sprintf("%d ERROR/FATAL lines; most in %s", errs, strings.Join(top, ", "))
}

// span renders a bucket's times: the date once when both are on one day.
func span(from, to int64) string {
	fd, ft := stamp(from)
	td, tt := stamp(to)
	if fd == td {
		return fd + " " + ft + "–" + tt
	}
	return fd + " " + ft + " – " + td + " " + tt
}

// stamp is time s as its date and its clock time: "2024-05-01", "15:04:05";
// a date of year 0 (syslog's, which has no year) is "Nov 01".
func stamp(s int64) (date, clock string) {
	d := s / 86400
	if s < 0 && s%86400 != 0 {
		d--
	}
	sec := s - d*86400
	y, m, dd := civil(d)
	clock = fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	if y == 0 && m >= 1 && m <= 12 {
		return fmt.Sprintf("%s %02d", months[m-1], dd), clock
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, dd), clock
}

// level finds a log level in the first bytes of line: a word in capitals
// (ERROR, [WARN], E for none), level=error / "level":"error", or a tag
// such as syslog's "sshd[42]: error:". It returns
// the level and where the text after it starts.
func level(line []byte) (int, int) {
	end := min(len(line), 160)
	for i := 0; i < end; {
		c := line[i]
		if !isLetter(c) {
			i++
			continue
		}
		j := i
		for j < len(line) && isLetter(line[j]) {
			j++
		}
		if lv := levelWord(line[i:j], i >= 6 && hasLevelKey(line[:i]) || taggedWord(line, i, j)); lv != lvNone {
			return lv, j
		}
		i = j
	}
	return lvNone, 0
}

// taggedWord says whether the word line[i:j] is a lower-case level written
// as a message's tag: followed by ':' and first in the line or in a
// syslog message ("sshd[42]: error: ...", "fatal: not a git repository").
func taggedWord(line []byte, i, j int) bool {
	return j < len(line) && line[j] == ':' && (i == 0 || i >= 2 && line[i-2] == ':' && line[i-1] == ' ')
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// hasLevelKey says whether b ends with level= or "level":" (a lower-case
// level's key).
func hasLevelKey(b []byte) bool {
	return bytes.HasSuffix(b, []byte("level=")) || bytes.HasSuffix(b, []byte(`level":"`)) || bytes.HasSuffix(b, []byte(`level": "`))
}

func levelWord(w []byte, keyed bool) int {
	if len(w) < 3 || len(w) > 8 {
		return lvNone
	}
	if keyed {
		var up [8]byte
		for i, c := range w {
			if c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			up[i] = c
		}
		w = up[:len(w)]
	}
	switch string(w) {
	case "FATAL", "PANIC", "CRITICAL", "CRIT", "EMERG", "ALERT":
		return lvFatal
	case "ERROR", "ERR":
		return lvError
	case "WARN", "WARNING":
		return lvWarn
	case "INFO", "NOTICE":
		return lvInfo
	case "DEBUG":
		return lvDebug
	case "TRACE":
		return lvTrace
	}
	return lvNone
}

// kindCounter keeps the most frequent error keys of a bucket in bounded
// space (Misra-Gries: a full table lowers every count to make room, so a
// count is a lower bound, exact for a key that never lost its slot), with
// the first and last line of each while it is kept.
type kindCounter struct {
	kinds [4]protocol.Kind
}

func (k *kindCounter) add(key string, line int64) {
	k.addKind(protocol.Kind{Text: key, Count: 1, FirstLine: line, LastLine: line})
}

func (k *kindCounter) addKind(in protocol.Kind) {
	if len(in.Text) > 60 {
		in.Text = clip(in.Text[:60])
	}
	free := -1
	for i := range k.kinds {
		c := &k.kinds[i]
		if c.Count > 0 && c.Text == in.Text {
			c.Count += in.Count
			c.FirstLine, c.LastLine = min(c.FirstLine, in.FirstLine), max(c.LastLine, in.LastLine)
			return
		}
		if c.Count == 0 && free < 0 {
			free = i
		}
	}
	if free >= 0 {
		k.kinds[free] = in
		return
	}
	low := in.Count
	for i := range k.kinds {
		low = min(low, k.kinds[i].Count)
	}
	for i := range k.kinds {
		k.kinds[i].Count -= low
	}
	if in.Count > low {
		in.Count -= low
		k.addKind(in)
	}
}

func (k *kindCounter) merge(o *kindCounter) {
	for _, c := range o.kinds {
		if c.Count > 0 {
			k.addKind(c)
		}
	}
}

// top lists at most n kinds, the most frequent first.
func (k *kindCounter) top(n int) []protocol.Kind {
	ks := k.kinds
	sort.SliceStable(ks[:], func(a, b int) bool { return ks[a].Count > ks[b].Count })
	var out []protocol.Kind
	for _, c := range ks[:n] {
		if c.Count > 0 {
			out = append(out, c)
		}
	}
	return out
}

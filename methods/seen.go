package methods

import (
	"bytes"
	"hash/maphash"
	"sort"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// MaxSeenBytes bounds what the daemon keeps of what its sessions read, for
// read's ifChanged: 8 bytes a line read, never the text.
const MaxSeenBytes = 64 << 20

// seenOverhead is what an entry costs besides its hashes, roughly.
const seenOverhead = 256

// seenSeed makes the line hashes: one seed for the daemon's life, so
// hashes of one run compare.
var seenSeed = maphash.MakeSeed()

// seenKey names a file a session read: its id and the file's path.
type seenKey struct{ session, path string }

// seenFile is what a session saw of a file: the hash of each line it read
// (the last time it read it), in spans of consecutive lines, and the file's
// line count at the last read.
type seenFile struct {
	spans      []seenSpan // sorted, disjoint, never adjacent
	totalLines int64
	drift      int64 // how many lines the file grew or shrank by, summed over its reads
	bytes      int64
}

type seenSpan struct {
	start  int64    // line number of hashes[0]
	hashes []uint64 // one a line
}

func (s seenSpan) end() int64 { return s.start + int64(len(s.hashes)) - 1 }

// seenStore is the daemon's record of what its sessions read, an LRU
// bounded by MaxSeenBytes over all sessions.
type seenStore struct {
	mu    sync.Mutex
	lru   *simplelru.LRU[seenKey, *seenFile]
	bytes int64
	max   int64
}

func newSeenStore(max int64) *seenStore {
	st := &seenStore{max: max}
	// Entries are bounded by bytes; the count bound only has to be large.
	st.lru, _ = simplelru.NewLRU[seenKey, *seenFile](1<<20, func(_ seenKey, f *seenFile) { st.bytes -= f.bytes })
	return st
}

// hashLines hashes each line of raw (whole lines, endings included).
func hashLines(raw []byte) []uint64 {
	var hs []uint64
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\n')
		line := raw
		if i >= 0 {
			line = raw[:i+1]
		}
		hs = append(hs, maphash.Bytes(seenSeed, line))
		raw = raw[len(line):]
	}
	return hs
}

// seenResult is what a re-read found against what the session saw.
type seenResult struct {
	known     bool       // the session had read some line of the window
	unchanged bool       // every line as seen, at the same number
	changed   [][2]int64 // lines (of the window) that differ from what was seen
	unseen    [][2]int64 // lines (of the window) the session never read
	moved     bool       // some lines were seen at other numbers
}

// compare checks the window of lines start.. (hashes) of a file of
// totalLines lines against what session saw of it, then adds the window to
// what was seen: every window the session read is kept (merged, the newest
// hashes of a line winning), so that a re-read of any of them compares with
// what the session was shown.
func (st *seenStore) compare(key seenKey, start int64, hashes []uint64, totalLines int64) seenResult {
	end := start + int64(len(hashes)) - 1
	st.mu.Lock()
	f, ok := st.lru.Get(key)
	var oldLines []int64
	var old []uint64
	var spans [][2]int64
	if ok {
		// Lines move by as much as the file grew or shrank since each read.
		slack := f.drift + absDiff(totalLines, f.totalLines) + 64
		oldLines, old = f.lines(start-slack, end+slack, 1<<20)
		for _, s := range f.spans {
			spans = append(spans, [2]int64{s.start, s.end()})
		}
	}
	st.mu.Unlock()

	var res seenResult
	if ok {
		res = alignWindow(old, oldLines, hashes, start, func(n int64) bool { return inSpans(spans, n) })
	}
	st.record(key, start, hashes, totalLines)
	return res
}

// record adds the window of lines start.. (hashes) of a file of totalLines
// lines to what session saw of it.
func (st *seenStore) record(key seenKey, start int64, hashes []uint64, totalLines int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f, ok := st.lru.Peek(key)
	if !ok {
		f = &seenFile{totalLines: totalLines}
	}
	f.put(seenSpan{start: start, hashes: hashes})
	f.drift += absDiff(totalLines, f.totalLines)
	f.totalLines = totalLines
	st.bytes -= f.bytes
	st.lru.Remove(key)
	f.bytes = f.size()
	st.lru.Add(key, f)
	st.bytes += f.bytes
	for st.bytes > st.max && st.lru.Len() > 1 {
		st.lru.RemoveOldest()
	}
}

// inSpans reports whether line n lies in one of spans (sorted, disjoint).
func inSpans(spans [][2]int64, n int64) bool {
	i := sort.Search(len(spans), func(i int) bool { return spans[i][1] >= n })
	return i < len(spans) && spans[i][0] <= n
}

func absDiff(a, b int64) int64 {
	n := a - b
	if n < 0 {
		return -n
	}
	return n
}

// lines returns the seen lines within from..to (at most max), with their
// numbers.
func (f *seenFile) lines(from, to int64, max int) ([]int64, []uint64) {
	var nums []int64
	var hs []uint64
	for _, s := range f.spans {
		for i, h := range s.hashes {
			n := s.start + int64(i)
			if n >= from && n <= to && len(hs) < max {
				nums, hs = append(nums, n), append(hs, h)
			}
		}
	}
	return nums, hs
}

// put records span, replacing what was seen of its lines.
func (f *seenFile) put(span seenSpan) {
	var out []seenSpan
	for _, s := range f.spans {
		if s.end() < span.start || s.start > span.end() {
			out = append(out, s)
			continue
		}
		if s.start < span.start {
			out = append(out, seenSpan{start: s.start, hashes: s.hashes[:span.start-s.start]})
		}
		if s.end() > span.end() {
			out = append(out, seenSpan{start: span.end() + 1, hashes: s.hashes[span.end()+1-s.start:]})
		}
	}
	out = append(out, span)
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	merged := out[:1]
	for _, s := range out[1:] {
		last := &merged[len(merged)-1]
		if last.end()+1 == s.start {
			last.hashes = append(append([]uint64(nil), last.hashes...), s.hashes...)
			continue
		}
		merged = append(merged, s)
	}
	f.spans = merged
}

func (f *seenFile) size() int64 {
	n := int64(seenOverhead)
	for _, s := range f.spans {
		n += int64(cap(s.hashes))*8 + 32
	}
	return n
}

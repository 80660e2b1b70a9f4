package methods

import (
	"hash/maphash"
	"slices"
	"sort"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"golang.org/x/sync/semaphore"
)

// MaxSeenBytes bounds what the daemon keeps of what its sessions read, for
// read's ifChanged: 8 bytes a line read, never the text.
const MaxSeenBytes = 64 << 20

// seenOverhead is what an entry costs besides its hashes, roughly.
const seenOverhead = 256

const (
	// maxSeenFileShare is the share of MaxSeenBytes one file's record may
	// hold (a quarter: 2M lines of 64 MiB), so that one session paging a
	// huge file does not push every other file out; past it the lines
	// farthest from the window just read go first.
	maxSeenFileShare = 4
	// seenMergeMax is the longest span two spans that touch are joined
	// into when that takes a new array: so paging a file either way costs
	// each read its window, never the spans read before (all of which
	// were copied at each read: quadratic), and short windows read one
	// after another still make few spans.
	seenMergeMax = 4096
	// maxSeenSpans bounds a file's spans (windows apart), which each read
	// walks; past it the farthest from the window just read go.
	maxSeenSpans = 4096
)

const (
	// seenWorkBudget bounds the memory of the comparisons and records of
	// windows under way in the daemon at once (seenWeight's bytes): a
	// session's 64 requests in flight, each a window of 256K one-byte
	// lines, held 400 MiB of hashes and maps.
	seenWorkBudget = 48 << 20
	// seenLineBytes is what a window's line costs a comparison: its hash,
	// up to three lines seen near it (number and hash) and the maps and
	// slices of the alignment; seenWeight adds 512 KiB for the 8192 lines
	// seen around any window.
	seenLineBytes = 160
)

// seenFree is the weight a comparison runs without the budget: a window
// of some 9,000 lines (read's default is 2,000).
const seenFree = 2 << 20

// seenWeight is what comparing a window of lines lines takes.
func seenWeight(lines int64) int64 { return 512<<10 + max(lines, 0)*seenLineBytes }

// seenSeed makes the line hashes: one seed for the daemon's life, so
// hashes of one run compare.
var seenSeed = maphash.MakeSeed()

// seenKey names a file a session read: its id and the file's path.
type seenKey struct{ session, path string }

// seenFile is what a session saw of a file: the hash of each line it read
// (the last time it read it), in spans of consecutive lines, and the file's
// line count at the last read.
type seenFile struct {
	spans      []seenSpan // sorted, disjoint; each owns its array (appended to in place)
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
	busy  *semaphore.Weighted // the memory of the comparisons under way (work)
}

func newSeenStore(max int64) *seenStore {
	st := &seenStore{max: max, busy: semaphore.NewWeighted(seenWorkBudget)}
	// Entries are bounded by bytes; the count bound only has to be large.
	st.lru, _ = simplelru.NewLRU[seenKey, *seenFile](1<<20, func(_ seenKey, f *seenFile) { st.bytes -= f.bytes })
	return st
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
		// At most as far as the window is long (and 4096 lines): what
		// moved farther reads as changed or unseen, and the comparison's
		// memory stays a few times the window's (seenLineBytes).
		slack := min(f.drift+absDiff(totalLines, f.totalLines)+64, int64(len(hashes))+4096)
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

// record adds the window of lines start.. (hashes, which the store keeps)
// of a file of totalLines lines to what session saw of it, within the
// file's share and then the store's bytes (least recently read files
// first).
func (st *seenStore) record(key seenKey, start int64, hashes []uint64, totalLines int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f, ok := st.lru.Get(key)
	if !ok {
		f = &seenFile{totalLines: totalLines}
	}
	f.put(start, hashes)
	f.bound(start, start+int64(len(hashes))-1, st.max/maxSeenFileShare)
	f.drift += absDiff(totalLines, f.totalLines)
	f.totalLines = totalLines
	// Counted here once; the LRU's eviction callback takes off what it
	// drops (taking it off here as well sent the count below zero, and
	// nothing was ever evicted).
	old := f.bytes
	f.bytes = f.size()
	if ok {
		st.bytes += f.bytes - old
	} else {
		st.lru.Add(key, f)
		st.bytes += f.bytes
	}
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

// lines returns the seen lines within from..to (at most most), with
// their numbers.
func (f *seenFile) lines(from, to int64, most int) ([]int64, []uint64) {
	n := 0 // counted first: the slices are made once, of their size
	for i := f.first(from); i < len(f.spans) && f.spans[i].start <= to && n < most; i++ {
		n += int(min(f.spans[i].end(), to) - max(f.spans[i].start, from) + 1)
	}
	nums := make([]int64, 0, min(n, most))
	hs := make([]uint64, 0, min(n, most))
	for i := f.first(from); i < len(f.spans) && f.spans[i].start <= to && len(hs) < most; i++ {
		sp := f.spans[i]
		for n := max(sp.start, from); n <= min(sp.end(), to) && len(hs) < most; n++ {
			nums, hs = append(nums, n), append(hs, sp.hashes[n-sp.start])
		}
	}
	return nums, hs
}

// first is the index of the first span that ends at or after line n.
func (f *seenFile) first(n int64) int {
	return sort.Search(len(f.spans), func(i int) bool { return f.spans[i].end() >= n })
}

// put records the window of lines start.. (hashes, which f keeps),
// replacing what was seen of its lines: the lines already held are
// overwritten in place, the others become spans of their own, and spans
// that touch are joined where that copies little (seenMergeMax) or
// nothing (room in the first's array).
func (f *seenFile) put(start int64, hashes []uint64) {
	end := start + int64(len(hashes)) - 1
	i := f.first(start)
	var added []seenSpan // the window's lines no span held
	next := start
	j := i
	for ; j < len(f.spans) && f.spans[j].start <= end; j++ {
		sp := f.spans[j]
		from, to := max(sp.start, start), min(sp.end(), end)
		if from > next {
			added = append(added, seenSpan{start: next, hashes: hashes[next-start : from-start]})
		}
		copy(sp.hashes[from-sp.start:to-sp.start+1], hashes[from-start:to-start+1])
		next = to + 1
	}
	if next <= end {
		added = append(added, seenSpan{start: next, hashes: hashes[next-start:]})
	}
	if len(added) == 0 {
		return
	}
	if len(added) > 1 || len(added[0].hashes) < len(hashes) {
		for k := range added { // pieces of one array: each span must own its own
			added[k].hashes = slices.Clone(added[k].hashes)
		}
	}
	seg := append(slices.Clone(f.spans[i:j]), added...)
	sort.Slice(seg, func(a, b int) bool { return seg[a].start < seg[b].start })
	f.spans = slices.Replace(f.spans, i, j, seg...)
	// Join within the segment and with its neighbours on either side, where
	// that copies little: the spans need not be joined (they are looked up
	// by line), and joining a window to a long span copied the span.
	lo, hi := max(i-1, 0), min(i+len(seg), len(f.spans)-1)
	for k := lo; k < hi; {
		a, b := &f.spans[k], f.spans[k+1]
		n := len(a.hashes) + len(b.hashes)
		if a.end()+1 != b.start || n > cap(a.hashes) && n > seenMergeMax {
			k++
			continue
		}
		a.hashes = append(a.hashes, b.hashes...)
		f.spans = slices.Delete(f.spans, k+1, k+2)
		hi--
	}
}

// bound keeps f within maxSpans spans and maxBytes (size): the lines
// farthest from the window start..end go first, whole spans, then, of a
// span still too large, its far end, copied down to half the bytes so
// that the next reads trim again only after as many lines more.
func (f *seenFile) bound(start, end, maxBytes int64) {
	far := func(sp seenSpan) int64 {
		switch {
		case sp.end() < start:
			return start - sp.end()
		case sp.start > end:
			return sp.start - end
		}
		return 0
	}
	size := f.size()
	for len(f.spans) > 1 && (len(f.spans) > maxSeenSpans || size > maxBytes) {
		k := len(f.spans) - 1
		if far(f.spans[0]) >= far(f.spans[k]) {
			k = 0
		}
		size -= spanSize(f.spans[k])
		f.spans = slices.Delete(f.spans, k, k+1)
	}
	if len(f.spans) == 1 && size > maxBytes {
		sp := f.spans[0]
		keep := max((maxBytes/2-seenOverhead-32)/8, 1)
		// Centred on the window, within the span.
		mid := (max(start, sp.start) + min(end, sp.end())) / 2
		from := max(sp.start, mid-keep/2)
		to := min(sp.end(), from+keep-1)
		from = max(sp.start, to-keep+1)
		f.spans[0] = seenSpan{start: from, hashes: slices.Clone(sp.hashes[from-sp.start : to-sp.start+1])}
	}
}

func (f *seenFile) size() int64 {
	n := int64(seenOverhead)
	for _, s := range f.spans {
		n += spanSize(s)
	}
	return n
}

// spanSize is what a span holds: its array, whole, and its header.
func spanSize(s seenSpan) int64 { return int64(cap(s.hashes))*8 + 32 }

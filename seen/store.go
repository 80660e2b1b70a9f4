package seen

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"golang.org/x/sync/semaphore"
)

// MaxBytes bounds what the daemon keeps of what its sessions read, for
// read's ifChanged: 8 bytes a line read, never the text.
const MaxBytes = 64 << 20

// overhead is what an entry costs besides its hashes, roughly.
const overhead = 256

const (
	// maxFileShare is the share of MaxBytes one file's record may
	// hold (a quarter: 2M lines of 64 MiB), so that one session paging a
	// huge file does not push every other file out; past it the lines
	// farthest from the window just read go first.
	maxFileShare = 4
	// mergeMax is the longest span two spans that touch are joined
	// into when that takes a new array: so paging a file either way costs
	// each read its window, never the spans read before (all of which
	// were copied at each read: quadratic), and short windows read one
	// after another still make few spans.
	mergeMax = 4096
	// maxSpans bounds a file's spans (windows apart), which each read
	// walks; past it the farthest from the window just read go.
	maxSpans = 4096
)

const (
	// workBudget bounds the memory of the comparisons and records of
	// windows under way in the daemon at once (weight's bytes): a
	// session's 64 requests in flight, each a window of 256K one-byte
	// lines, held 400 MiB of hashes and maps.
	workBudget = 48 << 20
	// lineBytes is what a window's line costs a comparison: its hash,
	// up to three lines seen near it (number and hash) and the maps and
	// slices of the alignment; weight adds 512 KiB for the 8192 lines
	// seen around any window.
	lineBytes = 160
)

// freeWeight is the weight a comparison runs without the budget: a window
// of some 9,000 lines (read's default is 2,000).
const freeWeight = 2 << 20

// weight is what comparing a window of lines lines takes.
func weight(lines int64) int64 { return 512<<10 + max(lines, 0)*lineBytes }

// Key names a file a session read: its id and the file's path.
type Key struct{ Session, Path string }

// file is what a session saw of a file: the hash of each line it read
// (the last time it read it), in spans of consecutive lines, and the file's
// line count at the last read.
type file struct {
	spans      []span // sorted, disjoint; each owns its array (appended to in place)
	totalLines int64
	drift      int64 // how many lines the file grew or shrank by, summed over its reads
	bytes      int64
}

type span struct {
	start  int64    // line number of hashes[0]
	hashes []uint64 // one a line
}

func (s span) end() int64 { return s.start + int64(len(s.hashes)) - 1 }

// Store is the daemon's record of what its sessions read, an LRU
// bounded by MaxBytes over all sessions.
type Store struct {
	mu    sync.Mutex
	lru   *simplelru.LRU[Key, *file]
	bytes int64
	max   int64
	busy  *semaphore.Weighted // the memory of the comparisons under way (work)
}

// NewStore makes a store that keeps at most max bytes of hashes.
func NewStore(max int64) *Store {
	st := &Store{max: max, busy: semaphore.NewWeighted(workBudget)}
	// Entries are bounded by bytes; the count bound only has to be large.
	st.lru, _ = simplelru.NewLRU[Key, *file](1<<20, func(_ Key, f *file) { st.bytes -= f.bytes })
	return st
}

// Result is what a re-read found against what the session saw.
type Result struct {
	Known     bool       // the session had read some line of the window
	Unchanged bool       // every line as seen, at the same number
	Changed   [][2]int64 // lines (of the window) that differ from what was seen
	Unseen    [][2]int64 // lines (of the window) the session never read
	Moved     bool       // some lines were seen at other numbers
}

// Compare checks the window of lines start.. (hashes) of a file of
// totalLines lines against what session saw of it, then adds the window to
// what was seen: every window the session read is kept (merged, the newest
// hashes of a line winning), so that a re-read of any of them compares with
// what the session was shown.
func (st *Store) Compare(key Key, start int64, hashes []uint64, totalLines int64) Result {
	res := st.Check(key, start, hashes, totalLines)
	st.Record(key, start, hashes, totalLines)
	return res
}

// Check is Compare without adding the window to what was seen: for a
// window that may yet be cut shorter before the session is shown it.
func (st *Store) Check(key Key, start int64, hashes []uint64, totalLines int64) Result {
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
		// memory stays a few times the window's (lineBytes).
		slack := min(f.drift+absDiff(totalLines, f.totalLines)+64, int64(len(hashes))+4096)
		oldLines, old = f.lines(start-slack, end+slack, 1<<20)
		for _, s := range f.spans {
			spans = append(spans, [2]int64{s.start, s.end()})
		}
	}
	st.mu.Unlock()

	var res Result
	if ok {
		res = align(old, oldLines, hashes, start, func(n int64) bool { return inSpans(spans, n) })
	}
	return res
}

// Record adds the window of lines start.. (hashes, which the store keeps)
// of a file of totalLines lines to what session saw of it, within the
// file's share and then the store's bytes (least recently read files
// first).
func (st *Store) Record(key Key, start int64, hashes []uint64, totalLines int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f, ok := st.lru.Get(key)
	if !ok {
		f = &file{totalLines: totalLines}
	}
	f.put(start, hashes)
	f.bound(start, start+int64(len(hashes))-1, st.max/maxFileShare)
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
func (f *file) lines(from, to int64, most int) ([]int64, []uint64) {
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
func (f *file) first(n int64) int {
	return sort.Search(len(f.spans), func(i int) bool { return f.spans[i].end() >= n })
}

// put records the window of lines start.. (hashes, which f keeps),
// replacing what was seen of its lines: the lines already held are
// overwritten in place, the others become spans of their own, and spans
// that touch are joined where that copies little (mergeMax) or
// nothing (room in the first's array).
func (f *file) put(start int64, hashes []uint64) {
	end := start + int64(len(hashes)) - 1
	i := f.first(start)
	var added []span // the window's lines no span held
	next := start
	j := i
	for ; j < len(f.spans) && f.spans[j].start <= end; j++ {
		sp := f.spans[j]
		from, to := max(sp.start, start), min(sp.end(), end)
		if from > next {
			added = append(added, span{start: next, hashes: hashes[next-start : from-start]})
		}
		copy(sp.hashes[from-sp.start:to-sp.start+1], hashes[from-start:to-start+1])
		next = to + 1
	}
	if next <= end {
		added = append(added, span{start: next, hashes: hashes[next-start:]})
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
		if a.end()+1 != b.start || n > cap(a.hashes) && n > mergeMax {
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
func (f *file) bound(start, end, maxBytes int64) {
	far := func(sp span) int64 {
		switch {
		case sp.end() < start:
			return start - sp.end()
		case sp.start > end:
			return sp.start - end
		}
		return 0
	}
	size := f.size()
	for len(f.spans) > 1 && (len(f.spans) > maxSpans || size > maxBytes) {
		k := len(f.spans) - 1
		if far(f.spans[0]) >= far(f.spans[k]) {
			k = 0
		}
		size -= spanSize(f.spans[k])
		f.spans = slices.Delete(f.spans, k, k+1)
	}
	if len(f.spans) == 1 && size > maxBytes {
		sp := f.spans[0]
		keep := max((maxBytes/2-overhead-32)/8, 1)
		// Centred on the window, within the span.
		mid := (max(start, sp.start) + min(end, sp.end())) / 2
		from := max(sp.start, mid-keep/2)
		to := min(sp.end(), from+keep-1)
		from = max(sp.start, to-keep+1)
		f.spans[0] = span{start: from, hashes: slices.Clone(sp.hashes[from-sp.start : to-sp.start+1])}
	}
}

func (f *file) size() int64 {
	n := int64(overhead)
	for _, s := range f.spans {
		n += spanSize(s)
	}
	return n
}

// spanSize is what a span holds: its array, whole, and its header.
func spanSize(s span) int64 { return int64(cap(s.hashes))*8 + 32 }

// Work waits for the memory of comparing or recording a window of
// lines lines (weight) and returns what gives it back. A window whose weight is
// at most freeWeight takes none: the budget's waiters are served in turn,
// and another session's reads of a few thousand lines must not wait
// behind one session's flood of huge windows.
func (st *Store) Work(ctx context.Context, lines int64) (func(), error) {
	n := min(weight(lines), workBudget)
	if n <= freeWeight {
		return func() {}, nil
	}
	if err := st.busy.Acquire(ctx, n); err != nil {
		return nil, fmt.Errorf("waiting to compare the window: %w", err)
	}
	return func() { st.busy.Release(n) }, nil
}

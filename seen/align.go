package seen

import (
	"slices"
	"sort"
)

// align matches the lines of a window (hashes nw, lines start..) to
// the lines a session saw (old, at line numbers oldLines) by content, as
// an anchored diff does (Heckel; Go's internal/diff): lines found once in
// each are anchors, the longest run of anchors in the same order is kept,
// a line equal to the one seen at its number matches it, and matches are
// extended from both ends and from each anchor over equal lines. So 10
// lines inserted at the top of a file are the only lines of a later window
// that do not match, where comparing by line number would find every line
// changed. A line that matches none is changed when the session saw its
// line number, or the number it maps to by its nearest match (seen
// reports that); else the session never read it: unseen. Time and memory
// are linear in the lines.
func align(old []uint64, oldLines []int64, nw []uint64, start int64, seen func(int64) bool) Result {
	match := matchLines(old, oldLines, nw, start)
	res := Result{Unchanged: true}
	shift := mapShifts(match, oldLines, start)
	for ni, oi := range match {
		n := start + int64(ni)
		switch {
		case oi >= 0:
			res.Known = true
			if oldLines[oi] != n {
				res.Unchanged, res.Moved = false, true
			}
		case seen(n) || shift[ni] != 0 && seen(n+shift[ni]):
			res.Known, res.Unchanged = true, false
			res.Changed = addLine(res.Changed, n)
		default:
			res.Unchanged = false
			res.Unseen = addLine(res.Unseen, n)
		}
	}
	return res
}

// matchLines gives each line of nw the index in old of the line it matches,
// -1 for none.
func matchLines(old []uint64, oldLines []int64, nw []uint64, start int64) []int {
	match := make([]int, len(nw))
	for i := range match {
		match[i] = -1
	}
	used := make([]bool, len(old))
	set := func(ni, oi int) { match[ni], used[oi] = oi, true }
	for _, p := range longestIncreasing(uniquePairs(old, nw)) {
		set(p.n, p.o)
	}
	for ni := range nw { // equal at the same number (oldLines rise)
		oi, ok := slices.BinarySearch(oldLines, start+int64(ni))
		if ok && match[ni] < 0 && !used[oi] && old[oi] == nw[ni] {
			set(ni, oi)
		}
	}
	if len(old) > 0 && len(nw) > 0 {
		if match[0] < 0 && !used[0] && old[0] == nw[0] {
			set(0, 0)
		}
		if ln, lo := len(nw)-1, len(old)-1; match[ln] < 0 && !used[lo] && old[lo] == nw[ln] {
			set(ln, lo)
		}
	}
	for ni := 0; ni+1 < len(nw); ni++ { // forward from each match
		if oi := match[ni]; oi >= 0 && oi+1 < len(old) && match[ni+1] < 0 && !used[oi+1] && old[oi+1] == nw[ni+1] {
			set(ni+1, oi+1)
		}
	}
	for ni := len(nw) - 1; ni > 0; ni-- { // backward
		if oi := match[ni]; oi > 0 && match[ni-1] < 0 && !used[oi-1] && old[oi-1] == nw[ni-1] {
			set(ni-1, oi-1)
		}
	}
	return match
}

// mapShifts gives each line of the window the shift (old line number minus
// new) of its nearest match before it, else after it; 0 when none matched.
func mapShifts(match []int, oldLines []int64, start int64) []int64 {
	shift := make([]int64, len(match))
	first := -1
	var cur int64
	for ni, oi := range match {
		if oi >= 0 {
			cur = oldLines[oi] - (start + int64(ni))
			if first < 0 {
				first = ni
			}
		}
		if first >= 0 {
			shift[ni] = cur
		}
	}
	for ni := 0; ni < first; ni++ {
		shift[ni] = shift[first]
	}
	return shift
}

// addLine adds line n to ranges, rising.
func addLine(ranges [][2]int64, n int64) [][2]int64 {
	if k := len(ranges); k > 0 && ranges[k-1][1] == n-1 {
		ranges[k-1][1] = n
		return ranges
	}
	return append(ranges, [2]int64{n, n})
}

type pair struct{ o, n int }

// uniquePairs pairs the lines found exactly once in old and once in nw, in
// nw's order.
func uniquePairs(old, nw []uint64) []pair {
	type count struct{ o, n, oi int }
	// No size hint: a window of like lines (empty ones, a log's repeats)
	// has a few distinct hashes, and a hint of its length made the map
	// 19 MB for 256K empty lines.
	m := make(map[uint64]count)
	for i, h := range old {
		c := m[h]
		c.o++
		c.oi = i
		m[h] = c
	}
	for _, h := range nw {
		c := m[h]
		c.n++
		m[h] = c
	}
	var ps []pair
	for i, h := range nw {
		if c := m[h]; c.o == 1 && c.n == 1 {
			ps = append(ps, pair{o: c.oi, n: i})
		}
	}
	return ps
}

// longestIncreasing returns the longest subsequence of ps (in n order) whose
// o rise too: patience sorting, O(n log n).
func longestIncreasing(ps []pair) []pair {
	var tails []int // tails[k]: index in ps of the smallest tail of a run of k+1
	prev := make([]int, len(ps))
	for i, p := range ps {
		k := sort.Search(len(tails), func(j int) bool { return ps[tails[j]].o >= p.o })
		if k > 0 {
			prev[i] = tails[k-1]
		} else {
			prev[i] = -1
		}
		if k == len(tails) {
			tails = append(tails, i)
		} else {
			tails[k] = i
		}
	}
	out := make([]pair, len(tails))
	for k, i := len(tails)-1, -1; k >= 0; k-- {
		if i < 0 {
			i = tails[len(tails)-1]
		}
		out[k] = ps[i]
		i = prev[i]
	}
	return out
}

package methods

import "sort"

// alignWindow matches the lines of a window (hashes nw, lines start..) to
// the lines a session saw (old, at line numbers oldLines) by content, as
// an anchored diff does (Heckel; Go's internal/diff): lines found once in
// each are anchors, the longest run of anchors in the same order is kept,
// and matches are extended from each anchor, and from both ends, over equal
// lines. So 10 lines inserted at the top of a file are the only lines of a
// later window that do not match, where comparing by line number would
// find every line changed. Time and memory are linear in the lines.
func alignWindow(old []uint64, oldLines []int64, nw []uint64, start int64) seenResult {
	match := make([]int, len(nw)) // index in old, -1 for none
	for i := range match {
		match[i] = -1
	}
	used := make([]bool, len(old))
	set := func(ni, oi int) { match[ni], used[oi] = oi, true }
	for _, p := range longestIncreasing(uniquePairs(old, nw)) {
		set(p.n, p.o)
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
	res := seenResult{unchanged: true}
	for ni, oi := range match {
		n := start + int64(ni)
		switch {
		case oi < 0:
			res.unchanged = false
			if k := len(res.changed); k > 0 && res.changed[k-1][1] == n-1 {
				res.changed[k-1][1] = n
			} else {
				res.changed = append(res.changed, [2]int64{n, n})
			}
		case oldLines[oi] != n:
			res.unchanged, res.moved = false, true
		}
	}
	return res
}

type pair struct{ o, n int }

// uniquePairs pairs the lines found exactly once in old and once in nw, in
// nw's order.
func uniquePairs(old, nw []uint64) []pair {
	type count struct{ o, n, oi int }
	m := make(map[uint64]count, len(old)+len(nw))
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

package search

import (
	"math"
	"sync/atomic"
)

// ahead keeps the workers from searching far past where the collector
// will stop. Files are claimed in walk order within a job but jobs run
// side by side, so the files searched so far need not be a prefix of
// the walk; yet once those searched hold more matching lines than the
// limit (or kept lines of more bytes than the budget), the collector,
// which merges in walk order, stops at or before the last of them: a
// file past it (stopAt) is never merged, so it is not searched. Without
// this, a grep that reaches its limit in its first 30 files searched the
// thousands queued behind them.
type ahead struct {
	limit, maxBytes int64
	count, bytes    atomic.Int64
	last            atomic.Int64 // the furthest position searched
	stopAt          atomic.Int64 // no file past this position is merged
}

// noAhead turns ahead off, for tests: every file is searched.
var noAhead bool

func newAhead(opt *GrepOptions) *ahead {
	a := &ahead{limit: int64(opt.Limit), maxBytes: int64(opt.MaxBytes)}
	if noAhead {
		a.limit, a.maxBytes = 0, 0
	}
	a.stopAt.Store(math.MaxInt64)
	return a
}

// past reports whether the file at walk position pos comes after the
// point where the collector will stop.
func (a *ahead) past(pos int64) bool {
	return pos > a.stopAt.Load()
}

// found counts the outcome of the file at position pos.
func (a *ahead) found(pos int64, o *outcome) {
	if o.skip != 0 || o.res.Count == 0 || a.limit <= 0 && a.maxBytes <= 0 {
		return
	}
	// last moves before the counts: whoever sees a count sees its position.
	for l := a.last.Load(); pos > l && !a.last.CompareAndSwap(l, pos); l = a.last.Load() {
	}
	size := 0
	for i := range o.res.Matches {
		size += o.res.Matches[i].size
	}
	count, bytes := a.count.Add(int64(o.res.Count)), a.bytes.Add(int64(size))
	if a.limit > 0 && count > a.limit || a.maxBytes > 0 && bytes > a.maxBytes {
		last := a.last.Load()
		for s := a.stopAt.Load(); last < s && !a.stopAt.CompareAndSwap(s, last); s = a.stopAt.Load() {
		}
	}
}

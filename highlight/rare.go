package highlight

import (
	"cmp"
	"slices"
)

// Lines of new shapes: what an output says is unusual in its own words.
// A line whose shape (see shapes.go) was seen at most once before, in an
// output of repeated shapes so far, is new: right after a group (within
// novelAfter lines of its last hit) it joins it, since a report changes
// shape where it starts and ends ("DETAIL:  Key (id)=(1017) already
// exists." after postgres's ERROR line, among 3,000 "INSERT 0 1"); else it
// opens or grows a group of its own (novels), kept while it fits and
// judged at Finish: shown, with reason "rare", when its shape stayed rare
// in the whole output and the output is one of repeated shapes.

const (
	novelBefore = 2  // a line of a shape seen fewer times before is new
	rareShape   = 2  // a shape seen at most this many times in the whole output is rare
	novelAfter  = 6  // lines after a group's last hit that a new shape may join
	novelLines  = 8  // lines of a group of new shapes
	maxNovel    = 32 // groups of new shapes kept
	graceLines  = 3  // unindented lines an indented continuation may take on grace
)

// The reasons of a group (Group.Reason).
const (
	ReasonError   = "error"
	ReasonWarning = "warning"
	ReasonExit    = "exit"
	ReasonRare    = "rare"
)

// novel takes the line n, which no rule or continuation took, when its
// shape is new (before lines of it came before) in an output of repeated
// shapes so far.
func (d *Detector) novel(n int64, line []byte, before int) {
	if before >= novelBefore || !d.counts.repetitive() || isBlank(string(line)) {
		return
	}
	if g := d.cur; g != nil && n == g.ToLine+1 && n-d.lastHit <= novelAfter && n-g.FromLine < int64(d.opt.MaxGroupLines) {
		d.appendLine(n, line)
		return
	}
	if i := d.novelCur; i >= 0 && d.novels[i].ToLine == n-1 && len(d.novels[i].Lines) < novelLines {
		g := &d.novels[i]
		g.Lines = append(g.Lines, string(d.cut(line)))
		g.ToLine = n
		return
	}
	g := Group{Span: Span{FromLine: n, ToLine: n}, Reason: ReasonRare, Rule: ReasonRare, Key: ReasonRare,
		Hits: 1, Hit: n, Rare: true, kind: -1, score: d.counts.surprise(), shape: d.lineShape}
	// The line before, and up to the paragraph's start when it is near
	// ("In x.sh line 8:" two lines above shellcheck's "^-- SC1049").
	from := n - 1
	for k := n - 1; k >= n-maxBefore+1 && k > d.closed; k-- {
		if rl := d.ringAt(k - 1); rl == nil || isBlank(string(rl.b)) {
			from = k
			break
		}
	}
	for k := from; k < n; k++ {
		if rl := d.ringAt(k); rl != nil && k > d.closed && (d.cur == nil || k > d.cur.ToLine) && !isBlank(string(rl.b)) {
			if len(g.Lines) == 0 {
				g.FromLine = k
			}
			g.Lines = append(g.Lines, string(rl.b))
		} else {
			g.Lines, g.FromLine = g.Lines[:0], n
		}
	}
	g.Lines = append(g.Lines, string(d.cut(line)))
	d.novelCur = d.keepNovel(g)
}

// keepNovel adds g to the groups of new shapes and returns its index, -1
// when it is not kept. Full, they give way: first those whose shape is no
// longer rare, then the least surprising (the lines of the start of an
// output are all new, and say least).
func (d *Detector) keepNovel(g Group) int {
	if len(d.novels) >= maxNovel {
		d.novels = slices.DeleteFunc(d.novels, func(o Group) bool { return d.counts.count(o.shape) > rareShape })
	}
	if len(d.novels) >= maxNovel {
		low := 0
		for i, o := range d.novels {
			if o.score < d.novels[low].score {
				low = i
			}
		}
		if d.novels[low].score >= g.score {
			return -1
		}
		d.novels = slices.Delete(d.novels, low, low+1)
	}
	d.novels = append(d.novels, g)
	return len(d.novels) - 1
}

// shapeChange reports whether a hit of rule r, of shape d.lineShape, must
// not join the current group: the group is a run of hits of one shape
// (more than one) and the hit is of another, or of a worse severity.
func (d *Detector) shapeChange(r *Rule) bool {
	g := d.cur
	if g == nil || d.runLen < 2 || d.runLen != g.Hits {
		return false
	}
	return d.lineShape != d.runShape || r.Severity > g.Severity
}

// run counts the hit just added to the current group in its run of one
// shape.
func (d *Detector) run() {
	if d.lineShape == d.runShape {
		d.runLen++
	}
}

// withNovels returns gs with the groups of new shapes whose shape stayed
// rare, in an output of repeated shapes: merged into a group of gs they
// touch, else inserted in output order, reason "rare"; or reason "exit"
// when the output's last lines report a failure (summary): they are then
// what it refers to ("see previous errors", "At least one error was
// detected").
func (d *Detector) withNovels(gs []Group, summary bool) []Group {
	if !d.counts.repetitive() {
		return gs
	}
	for _, c := range d.novels {
		if d.counts.count(c.shape) > rareShape {
			continue
		}
		if summary {
			c.Reason, c.Severity = ReasonExit, Error
		}
		gs = mergeGroup(gs, c)
	}
	return gs
}

// mergeGroup puts c among gs (in output order): joined to a group it
// overlaps or touches (their lines united, the group's own kept), else
// inserted. A group of new shapes takes the worse reason of the two.
func mergeGroup(gs []Group, c Group) []Group {
	i, _ := slices.BinarySearchFunc(gs, c.FromLine, func(g Group, n int64) int { return cmp.Compare(g.FromLine, n) })
	for _, j := range []int{i - 1, i} {
		if j < 0 || j >= len(gs) || gs[j].ToLine+1 < c.FromLine || c.ToLine+1 < gs[j].FromLine {
			continue
		}
		gs[j] = unite(gs[j], c)
		// The united group may now reach the next ones: they join it.
		for j+1 < len(gs) && gs[j+1].FromLine <= gs[j].ToLine+1 {
			gs[j] = unite(gs[j], gs[j+1])
			gs = slices.Delete(gs, j+1, j+2)
		}
		return gs
	}
	return slices.Insert(gs, i, c)
}

// unite returns g with the lines of c that it lacks, c touching or
// overlapping it; g keeps its hit, rule and key.
func unite(g, c Group) Group {
	lines := make([]string, 0, len(g.Lines)+len(c.Lines))
	from := min(g.FromLine, c.FromLine)
	for n := from; n <= max(g.ToLine, c.ToLine); n++ {
		switch {
		case n >= g.FromLine && n <= g.ToLine && int(n-g.FromLine) < len(g.Lines):
			lines = append(lines, g.Lines[n-g.FromLine])
		case n >= c.FromLine && n <= c.ToLine && int(n-c.FromLine) < len(c.Lines):
			lines = append(lines, c.Lines[n-c.FromLine])
		default:
			return g // a hole: leave g as it was
		}
	}
	g.FromLine, g.ToLine, g.Lines = from, max(g.ToLine, c.ToLine), lines
	if ReasonWeight(c.Reason) > ReasonWeight(g.Reason) {
		g.Reason, g.Severity = c.Reason, max(g.Severity, c.Severity)
	}
	return g
}

// ReasonWeight orders the reasons (Group.Reason), the strongest highest.
func ReasonWeight(r string) int {
	switch r {
	case ReasonError:
		return 4
	case ReasonExit:
		return 3
	case ReasonWarning:
		return 2
	case ReasonRare:
		return 1
	}
	return 0
}

// reasonOf is the reason of a group of a rule of severity s.
func reasonOf(s Severity) string {
	if s == Warning {
		return ReasonWarning
	}
	return ReasonError
}

// failureSummary reports whether the last lines of the output (Last)
// report a failure: a hit of an error rule, or a word of the vocabulary
// ("see previous errors", "At least one error was detected", "Failed 1")
// in a line no rule takes for a count of none.
func (d *Detector) failureSummary(last Group) bool {
	for _, l := range last.Lines {
		body := trimEnding([]byte(l))
		if r, _, _ := d.shapes.match(body); r != nil {
			if r.Severity == Error {
				return true
			}
			continue // a count of none (valgrind's "ERROR SUMMARY: 0 errors")
		}
		if failureWord(body, 0) >= 0 {
			return true
		}
	}
	return false
}

func trimEnding(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

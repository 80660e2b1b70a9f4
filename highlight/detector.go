package highlight

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/toold/toold/truncate"
)

// Options bound the detector's memory. The zero value means the defaults.
type Options struct {
	MaxGroups     int // groups kept (the first, the last and the best between); default 32
	MaxGroupLines int // lines of one group; a longer run of hits starts a new group; default 40
	MaxLineBytes  int // a kept line is cut at this many bytes (at a character boundary); default 4096
}

func (o Options) withDefaults() Options {
	if o.MaxGroups <= 0 {
		o.MaxGroups = 32
	}
	if o.MaxGroups < 2 {
		o.MaxGroups = 2
	}
	if o.MaxGroupLines <= 0 {
		o.MaxGroupLines = 40
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = 4096
	}
	return o
}

// Span names raw lines, 1-based and inclusive.
type Span struct {
	FromLine, ToLine int64
}

// Group is a run of whole lines that a model must see: one or more hits with
// their context, in output order.
type Group struct {
	Span
	// Lines are the cleaned lines FromLine..ToLine as fed, each cut at
	// MaxLineBytes (then without its ending).
	Lines    []string
	Severity Severity // the highest of its hits
	Rule     string   // the rule of its first hit
	Key      string   // its first hit's line, normalized (see Key)
	Hits     int      // lines that matched a rule
	Hit      int64    // the line of its worst hit (its first of that severity)
	Repeat   bool     // an earlier group had the same Key
	// Rare is set when its first hit's shape (see templates) is rare: the
	// first of its kind when found, or a kind of at most rareKind lines.
	Rare bool
	// Reason says why the group is there: ReasonError, ReasonWarning,
	// ReasonExit (the last lines before a non-zero exit, or lines a closing
	// summary of failure refers to) or ReasonRare (lines of a shape seen
	// once or twice among repeated shapes, in no known format or words).
	Reason string
	score  int64  // a rare group's surprise (see shapeCounts.surprise)
	shape  uint64 // a rare group's first new shape
	// keyShape is the shape of its worst hit (see lineShape): groups of
	// one are repeats. Key is made from the hit's line at Finish.
	keyShape uint64
	kind     int // the template of its first hit (see templates), -1 for none
	// Spare: pushed out of the MaxGroups kept, kept besides while they fit
	// (see Detector.spare); Rank places it after every group kept, and a
	// preview shows it only whole, with what the others left of the budget.
	Spare bool
	// Evidence are lines far before the group that it needs, no longer in
	// memory: the log lines a go test printed under its "=== RUN" line,
	// whose "--- FAIL" verdict this group holds. The caller reads them from
	// the spool.
	Evidence []Span
	// text holds the lines of a group the detector is making, one after
	// the other from textFrom, line i ending at ends[i]: Lines are made
	// from them at Finish, one string a group. The groups that the kept
	// ones push out (nearly every group of an error-dense output) thus
	// cost no string a line, and go back to the detector (Detector.free)
	// to be used again.
	text     []byte
	textFrom int32
	ends     []int32
}

// lineCount is how many lines the group holds (see text).
func (g *Group) lineCount() int { return len(g.ends) }

// lineAt is the group's line i (see text).
func (g *Group) lineAt(i int) []byte {
	from := g.textFrom
	if i > 0 {
		from = g.ends[i-1]
	}
	return g.text[from:g.ends[i]]
}

// textLen is the bytes of the group's lines (see text).
func (g *Group) textLen() int {
	if len(g.ends) == 0 {
		return 0
	}
	return int(g.ends[len(g.ends)-1] - g.textFrom)
}

// makeLines makes Lines from text: one string, cut.
func (g *Group) makeLines() {
	if len(g.ends) == 0 || len(g.Lines) == len(g.ends) {
		return
	}
	all := string(g.text[g.textFrom:g.ends[len(g.ends)-1]])
	g.Lines = make([]string, len(g.ends))
	from := g.textFrom
	for i, e := range g.ends {
		g.Lines[i] = all[from-g.textFrom : e-g.textFrom]
		from = e
	}
}

// Detector finds groups in a stream of lines. Feed it every line in order
// with Line, then call Finish. Its memory is bounded by Options: a few lines
// of context, the groups it keeps, and go test's open spans (names and
// numbers only). The zero value is not usable: call New.
type Detector struct {
	opt Options

	ring [maxBefore]ringLine // the last lines seen, for "before" context

	cur      *Group // the newest group; hits that touch it join it
	firstHit int64  // line of cur's first hit
	lastHit  int64  // line of cur's last hit
	rule     *Rule  // whose continuation is open
	left     int    // lines the continuation may still take
	indent   int    // of the hit that opened the continuation
	closed   int64  // last line of the groups closed so far

	kept []*Group // closed groups kept, in output order, but for the newest
	last *Group   // the newest closed group, always kept
	// spare are groups the kept ones pushed out, while they are at most
	// maxSpare and maxSpareBytes: a preview with budget left after the
	// kept groups shows them, so that a group is left out for the
	// budget, not for MaxGroups.
	spare      []*Group
	spareBytes int
	// low is the lowest priority among kept[1:] (see keep), when lowOK.
	low   int
	lowOK bool
	// free are groups pushed out of kept and spare, to be used again:
	// their text and ends keep their memory.
	free  []*Group
	keys  map[uint64]bool // the shapes of the groups' keys (Group.keyShape)
	found int
	sev   [3]int // groups found per severity

	tests  goTests
	py     pyTests
	shapes *matchCache
	cls    blockClass // Block's classification, reused

	// rare are the candidates of the prose rule (see proseRule): shown at
	// Finish when their shape stayed rare in an output of repeated shapes.
	rare      []Group
	tmpl      templates   // the shapes of the hit lines
	weakKinds map[int]int // groups of the vocab rule closed, by kind
	seen      int64       // the last line fed
	fed       int64       // bytes fed

	counts    shapeCounts // the shapes of every line (see shapes.go)
	lineShape uint64      // the shape of the line being fed
	novels    []Group     // groups of lines of new shapes (see novel), at most maxNovel
	novelCur  int         // the index in novels of the one that may grow, -1 for none
	runShape  uint64      // the shape of the current group's hits while they share one
	runLen    int         // how many of its hits, from its first, have that shape
	graceTail int         // lines at cur's end taken on grace (see continues), not yet confirmed
	grace     int         // lines the open continuation may still take on grace
}

type ringLine struct {
	n int64
	b []byte
}

// New returns a Detector with the given limits.
func New(opt Options) *Detector {
	return &Detector{opt: opt.withDefaults(), keys: map[uint64]bool{}, tests: goTests{spans: map[string]Span{}},
		py: pyTests{spans: map[string]Span{}}, shapes: newMatchCache(), weakKinds: map[int]int{}, novelCur: -1}
}

// Line feeds the next line: its raw 1-based number and its cleaned bytes,
// with or without its ending. Line numbers must rise; Block skips the lines
// that cannot matter. line is not kept.
func (d *Detector) Line(n int64, line []byte) {
	body, _ := truncate.SplitEnding(line)
	r, _, h := d.shapes.match(body)
	d.fed += int64(len(line))
	d.lineShape = lineShape(body, &d.cls.buf)
	d.line(n, line, r, h, d.counts.add(d.lineShape))
}

// line is Line for a line whose match (see matchCache.match) is known: r
// and its shape h; before is how many lines of its shape (see lineShape,
// d.lineShape) came before it.
func (d *Detector) line(n int64, line []byte, r *Rule, h uint64, before int) {
	body, _ := truncate.SplitEnding(line)
	d.seen = max(d.seen, n)
	d.testLine(n, body)
	if r != nil && r.Severity == 0 {
		r = nil
	} else if r != nil && r.Name == proseRule {
		if d.cur != nil && n == d.cur.ToLine+1 {
			// Right after a group, a word of failure need not be shaped
			// as a message ("BEGIN failed--compilation aborted" after
			// perl's "Can't locate").
			r = vocabRuleRow()
		} else if !(d.left > 0 && d.continues(body)) {
			d.rareLine(n, line, body, r, h)
			d.novel(n, line, before)
			d.push(n, line)
			return
		}
	}
	switch {
	case r != nil && r.weak() && d.left > 0 && d.continues(body):
		// A word of failure inside a report a rule opened is part of it.
		d.left--
		d.appendLine(n, line)
		d.exceptionHit(n, body)
		d.graceTail = 0
	case r != nil:
		d.hit(n, line, body, r, h)
	case d.left > 0 && d.continues(body):
		d.left--
		d.appendLine(n, line)
		d.exceptionHit(n, body)
		if before < novelBefore && d.counts.repetitive() {
			d.graceTail = 0 // a line of a new shape is the report's own
		}
	default:
		d.left = 0
		d.novel(n, line, before)
	}
	d.push(n, line)
}

// exceptionHit makes the exception line that ends a Python traceback
// (column 0, after the indented frames) its group's hit: the line a
// model must see when the budget shows a line or two of the group, as it
// does when the frames' code lines are long.
func (d *Detector) exceptionHit(n int64, body []byte) {
	if g := d.cur; g != nil && d.rule != nil && d.rule.Cont == contTraceback && g.ToLine == n &&
		g.Rule == d.rule.Name && indentOf(body) == 0 && len(bytes.TrimSpace(body)) > 0 {
		g.Hit = n
	}
}

// Gap tells the detector that lines were skipped unread: the current group
// ends and no continuation or go test output runs across the gap.
func (d *Detector) Gap() {
	d.close()
	d.novelCur = -1
	d.tests.open = ""
	d.py.reset()
}

// testLine feeds the trackers of verdicts and their evidence (go test's,
// pytest's) a line they may need.
func (d *Detector) testLine(n int64, body []byte) {
	d.tests.line(n, body)
	if len(body) > 0 && (body[0] == '_' || body[0] == '=') {
		d.py.line(n, body)
	}
}

// evidence returns the lines far before it that a verdict's test printed.
func (d *Detector) evidence(body []byte) (Span, bool) {
	if hasPrefix(body, "FAILED ") || hasPrefix(body, "ERROR ") {
		return d.py.evidence(body)
	}
	return d.tests.evidence(body)
}

// Finish closes the stream and returns the groups kept, in output order:
// but those of words of failure that the output repeats all through it
// (see templates.noise), which are not counted either.
func (d *Detector) Finish() Result {
	d.close()
	d.tmpl.rep = d.counts.repetitive()
	all := append(d.kept, d.spare...)
	if len(d.spare) > 0 {
		slices.SortFunc(all, func(a, b *Group) int { return cmp.Compare(a.FromLine, b.FromLine) })
	}
	all = append(all, d.last) // the newest
	gs := make([]Group, 0, len(all))
	for _, g := range all {
		if g != nil && !(weakRule(g.Rule) && d.tmpl.noise(g.kind, d.seen)) {
			g.makeLines()
			if g.kind >= 0 && d.tmpl.kinds[g.kind].Count <= rareKind {
				g.Rare = true
			}
			g.Reason = reasonOf(g.Severity)
			if i := g.Hit - g.FromLine; g.Key == "" && i >= 0 && i < int64(len(g.Lines)) {
				g.Key = Key(trimEnding([]byte(g.Lines[i])))
			}
			c := *g
			c.text, c.ends = nil, nil // held in Lines now
			gs = append(gs, c)
		}
	}
	gs, rare := d.withRare(gs)
	last := d.lastLines()
	gs = d.withNovels(gs, d.failureSummary(last))
	res := Result{Groups: gs, Found: d.found + rare, Errors: d.sev[Error] + rare, Warnings: d.sev[Warning], HitLines: d.tmpl.other}
	for k, n := range d.weakKinds {
		if d.tmpl.noise(k, d.seen) {
			res.Found -= n
			res.Errors -= n
		}
	}
	for i, k := range d.tmpl.kinds {
		if !d.tmpl.noise(i, d.seen) {
			res.HitLines += k.Count
		}
	}
	res.Kinds = d.tmpl.top(d.seen)
	res.Last = last
	return res
}

// lastLines returns the last lines fed (at most maxBefore, without blank
// ones at either end) as a group of the rule "exit": what a command wrote
// last before it failed.
func (d *Detector) lastLines() Group {
	to := d.seen
	for {
		b, ok := d.lineAt(to)
		if !ok {
			return Group{} // none, or not in memory
		}
		if !isBlank(string(b)) {
			break
		}
		to--
	}
	from := to
	for from > to-maxBefore+1 {
		b, ok := d.lineAt(from - 1)
		if !ok || isBlank(string(b)) {
			break
		}
		from--
	}
	g := Group{Span: Span{FromLine: from, ToLine: to}, Rule: ExitRule, Key: ExitRule, Severity: Error, Hit: to, kind: -1, Reason: ReasonExit}
	for n := from; n <= to; n++ {
		b, _ := d.lineAt(n)
		g.Lines = append(g.Lines, string(b))
	}
	return g
}

// lineAt returns line n from the ring; ok is false when it is not there.
// (An empty line may be kept as nil: ringAt takes it for none.)
func (d *Detector) lineAt(n int64) ([]byte, bool) {
	if n < 1 {
		return nil, false
	}
	rl := &d.ring[int(n%maxBefore)]
	return rl.b, rl.n == n
}

// ExitRule names the group of the last lines of an output (Result.Last).
const ExitRule = "exit"

// WithExit returns res with its last lines (Last) as its last group, of
// reason "exit", for a command that failed: the lines written just before
// a non-zero exit weigh more, ranked as the last error is (see Rank). When
// nothing else was found, res is as it was; when the last group holds them
// already, it is of reason "exit" if it was "rare".
func WithExit(res Result) Result {
	if len(res.Groups) == 0 || len(res.Last.Lines) == 0 {
		return res
	}
	if g := res.Groups[len(res.Groups)-1]; g.ToLine >= res.Last.ToLine {
		res.Groups = slices.Clone(res.Groups)
		if g.Reason == ReasonRare || g.Hit >= res.Last.ToLine {
			// Lines of rare shapes that end the output of a failed
			// command are what it said last: they weigh as it does.
			if g.Reason == ReasonRare {
				res.Found++
			}
			g.Reason, g.Severity = ReasonExit, Error
			res.Groups[len(res.Groups)-1] = g
			return res
		}
		// The last lines after its hit go to a group of their own, so
		// that they weigh as the last lines do.
		cut := g.Hit - g.FromLine + 1
		g.Lines, g.ToLine = g.Lines[:cut:cut], g.Hit
		res.Groups[len(res.Groups)-1] = g
	}
	last := res.Groups[len(res.Groups)-1]
	g := res.Last
	for g.FromLine <= last.ToLine { // groups do not overlap
		g.FromLine++
		g.Lines = g.Lines[1:]
	}
	res.Groups = append(res.Groups[:len(res.Groups):len(res.Groups)], g)
	res.Found++ // a group found as the others: kept, so not counted as left out
	return res
}

// Result is what a Detector found.
type Result struct {
	Groups   []Group // kept, in output order
	Found    int     // groups found, kept or not
	Errors   int     // groups found whose severity is Error
	Warnings int     // groups found whose severity is Warning
	// HitLines counts the lines found that a rule (or a word of failure)
	// marks; Kinds are their shapes, most frequent first (at most 10).
	HitLines int64
	Kinds    []Kind
	// Last holds the last lines fed (see WithExit); no lines when none.
	Last Group
}

func (d *Detector) hit(n int64, line, body []byte, r *Rule, h uint64) {
	k := 0
	for k < r.Before && d.ringAt(n-int64(k)-1) != nil {
		k++
	}
	from := n - int64(k)
	kind := d.tmpl.add(n, body, r, h)
	if d.shapeChange(r) || d.graceTail > 0 {
		// A hit of another shape, or worse, after a run of hits of one
		// shape is a group of its own: it would go down with the run. So
		// is one after lines taken on grace (see continues).
		d.close()
	}
	if g := d.cur; r.weak() && g != nil && n <= g.ToLine+1 && n-g.FromLine < int64(d.opt.MaxGroupLines) {
		// A word of failure right after a group joins it, and leaves its
		// continuation as it is.
		d.appendLine(n, line)
		g.Hits++
		d.lastHit = n
		d.run()
		return
	}
	if g := d.cur; g != nil && from <= g.ToLine+1 && n-g.FromLine < int64(d.opt.MaxGroupLines) {
		d.fill(g.ToLine+1, n-1)
	} else {
		d.close()
		// The hit itself must fit in the group.
		from = max(from, d.closed+1, n-int64(d.opt.MaxGroupLines)+1)
		// Severity is set below, with the key, as of the group's worst hit.
		d.cur = d.newGroup()
		*d.cur = Group{Span: Span{FromLine: from, ToLine: from - 1}, Rule: r.Name, Hit: n, kind: kind,
			Rare: kind >= 0 && d.tmpl.kinds[kind].Count == 1, text: d.cur.text[:0], ends: d.cur.ends[:0], Evidence: d.cur.Evidence[:0]}
		d.firstHit = n
		d.runShape, d.runLen = d.lineShape, 0
		d.fill(from, n-1)
	}
	g := d.cur
	d.graceTail = 0
	d.run()
	d.appendLine(n, line)
	if r.Severity > g.Severity || weakRule(g.Rule) && !r.weak() {
		// The group is known by its worst hit.
		g.Severity, g.Rule, g.keyShape, g.Hit = r.Severity, r.Name, d.lineShape, n
	} else if prev := d.rule; prev != nil && prev.Cont == contTraceback && g.Rule == prev.Name && d.left > 0 {
		d.exceptionHit(n, body)
	}
	g.Hits++
	d.lastHit = n
	d.rule, d.left, d.indent = r, r.After, indentOf(body)
	d.grace = 0
	if r.Cont == contReport {
		d.grace = graceLines
	}
	if r.Cont == contPytestE {
		d.py.sawE(n)
	}
	if r.Verdict {
		if sp, ok := d.evidence(body); ok && sp.ToLine < g.FromLine {
			sp.ToLine = min(sp.ToLine, sp.FromLine+int64(d.opt.MaxGroupLines)-1)
			g.Evidence = append(g.Evidence, sp)
		}
	}
}

// maxRare bounds the candidates of the prose rule kept.
const maxRare = 8

// rareLine takes the line n of the prose rule as a candidate: a group of
// its own with the line before it, apart from the groups being made, since
// whether it matters is known only at Finish. Only in an output of
// repeated shapes so far: prose, which is not, is full of such words.
func (d *Detector) rareLine(n int64, line, body []byte, r *Rule, h uint64) {
	if !d.counts.repetitive() {
		return
	}
	kind := d.tmpl.add(n, body, r, h)
	if kind < 0 || len(d.rare) >= maxRare || d.tmpl.kinds[kind].Count > rareKind {
		return
	}
	g := Group{Span: Span{FromLine: n, ToLine: n}, Rule: r.Name, Key: Key(body), keyShape: d.lineShape, Severity: r.Severity,
		Hits: 1, Hit: n, Rare: true, kind: kind}
	if rl := d.ringAt(n - 1); rl != nil && n-1 > d.closed && !isBlank(string(rl.b)) && (d.cur == nil || n-1 > d.cur.ToLine) {
		g.FromLine = n - 1
		g.Lines = append(g.Lines, string(rl.b))
	}
	g.Lines = append(g.Lines, string(d.cut(line)))
	d.rare = append(d.rare, g)
}

// withRare returns gs, in output order, with the candidates of the prose
// rule whose kind stayed rare (see templates.noise), each joined to a
// group of gs it overlaps or touches (see mergeGroup); and how many groups
// it added.
func (d *Detector) withRare(gs []Group) ([]Group, int) {
	added := 0
	for _, c := range d.rare {
		if d.tmpl.noise(c.kind, d.seen) {
			continue
		}
		c.Reason = ReasonError
		k := len(gs)
		if gs = mergeGroup(gs, c); len(gs) > k {
			added++ // a group of its own, not joined to one found
		}
	}
	return gs, added
}

// fill appends the ring's lines from..to to the current group.
func (d *Detector) fill(from, to int64) {
	for n := from; n <= to; n++ {
		if rl := d.ringAt(n); rl != nil {
			d.appendLine(n, rl.b)
		}
	}
}

func (d *Detector) appendLine(n int64, line []byte) {
	g := d.cur
	if g.lineCount() >= d.opt.MaxGroupLines {
		d.left = 0
		return
	}
	g.text = append(g.text, d.cut(line)...)
	g.ends = append(g.ends, int32(len(g.text)))
	g.ToLine = n
	if g.lineCount() >= d.opt.MaxGroupLines {
		d.left = 0
	}
}

// newGroup returns a group to fill: one pushed out before (see free),
// else a new one.
func (d *Detector) newGroup() *Group {
	if k := len(d.free); k > 0 {
		g := d.free[k-1]
		d.free = d.free[:k-1]
		return g
	}
	return &Group{}
}

// maxFree bounds Detector.free.
const maxFree = 8

// drop lets go of g, pushed out of the groups kept and spare: its memory
// is used for a group to come.
func (d *Detector) drop(g *Group) {
	if len(d.free) < maxFree && cap(g.text) <= 64<<10 {
		d.free = append(d.free, g)
	}
}

// cut bounds a kept line to MaxLineBytes, at a character boundary.
func (d *Detector) cut(line []byte) []byte {
	if len(line) <= d.opt.MaxLineBytes {
		return line
	}
	return line[:truncate.CutBack(line, d.opt.MaxLineBytes)]
}

func (d *Detector) push(n int64, line []byte) {
	i := int(n % maxBefore)
	d.ring[i].n = n
	d.ring[i].b = append(d.ring[i].b[:0], d.cut(line)...)
}

func (d *Detector) ringAt(n int64) *ringLine {
	if n < 1 {
		return nil
	}
	rl := &d.ring[int(n%maxBefore)]
	if rl.n != n || rl.b == nil {
		return nil
	}
	return rl
}

// close ends the current group: blank lines of context at its ends go, and
// it takes its place among the groups kept.
func (d *Detector) close() {
	g := d.cur
	if g == nil {
		return
	}
	d.cur, d.left = nil, 0
	// Lines taken on grace that no indented line confirmed are not the
	// report's.
	for ; d.graceTail > 0 && g.ToLine > d.lastHit && g.lineCount() > 1; d.graceTail-- {
		g.ends = g.ends[:len(g.ends)-1]
		g.ToLine--
	}
	d.graceTail = 0
	for g.ToLine > d.lastHit && g.lineCount() > 1 && isBlankBytes(g.lineAt(g.lineCount()-1)) {
		g.ends = g.ends[:len(g.ends)-1]
		g.ToLine--
	}
	for g.FromLine < d.firstHit && g.lineCount() > 1 && isBlankBytes(g.lineAt(0)) {
		g.textFrom = g.ends[0]
		g.ends = g.ends[1:]
		g.FromLine++
	}
	d.closed = g.ToLine
	g.Repeat = d.keys[g.keyShape]
	if !g.Repeat && len(d.keys) < 4096 {
		d.keys[g.keyShape] = true
	}
	d.found++
	d.sev[g.Severity]++
	if weakRule(g.Rule) && g.kind >= 0 {
		d.weakKinds[g.kind]++
	}
	if d.last != nil {
		d.keep(d.last)
	}
	d.last = g
}

// keep adds g to the kept groups; when they are full, the one of lowest
// priority but the first goes, the latest of equals: g itself when none
// of the others is lower (as every group of an error-dense log after the
// first ones), found without a pass over them (low).
func (d *Detector) keep(g *Group) {
	p := priority(g)
	if len(d.kept)+1 >= d.opt.MaxGroups && len(d.kept) >= 2 && d.lowOK && p <= d.low {
		d.keepSpare(g)
		return
	}
	d.kept = append(d.kept, g)
	if len(d.kept) > 1 && (!d.lowOK || p < d.low) {
		d.low, d.lowOK = p, true
	}
	if len(d.kept) < d.opt.MaxGroups {
		return
	}
	v := 1
	for i := 2; i < len(d.kept); i++ {
		if priority(d.kept[i]) <= priority(d.kept[v]) {
			v = i
		}
	}
	d.keepSpare(d.kept[v])
	d.kept = append(d.kept[:v], d.kept[v+1:]...)
	d.lowOK = false
	for _, k := range d.kept[1:] {
		if q := priority(k); !d.lowOK || q < d.low {
			d.low, d.lowOK = q, true
		}
	}
}

// The bounds of Detector.spare: with the kept groups, 256 groups, and four
// times the most a preview shows (protocol's cap of maxBytes, 256 KiB).
const (
	maxSpare      = 224
	maxSpareBytes = 1 << 20
)

// keepSpare keeps g, pushed out of the kept groups, among the spare ones
// while they fit their bounds (the first pushed out stay).
func (d *Detector) keepSpare(g *Group) {
	if len(d.spare) >= maxSpare {
		d.drop(g)
		return
	}
	n := g.textLen()
	if d.spareBytes+n > maxSpareBytes {
		d.drop(g)
		return
	}
	g.Spare = true
	d.spare = append(d.spare, g)
	d.spareBytes += n
}

// priority: errors before warnings, the first of a kind of line before
// the others, distinct messages before repeats.
func priority(g *Group) int {
	p := 4 * int(g.Severity)
	if g.Rare {
		p += 2
	}
	if !g.Repeat {
		p++
	}
	return p
}

func indentOf(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// continues reports whether body belongs to the hit whose continuation is open.
func (d *Detector) continues(body []byte) bool {
	blank := len(bytes.TrimSpace(body)) == 0
	ind := indentOf(body)
	switch d.rule.Cont {
	case contAny:
		return true
	case contBlank:
		return !blank
	case contIndented, contReport:
		if blank || ind > d.indent {
			d.graceTail = 0
			return true
		}
		// An unindented line may go on the report ("Stack trace:" and
		// its "#0 file(19): f()" frames before PHP's indented "thrown
		// in file on line 10"): taken on grace, dropped at close unless
		// an indented line follows.
		if d.grace > 0 {
			d.grace--
			d.graceTail++
			return true
		}
		return false
	case contGoTest:
		return !blank && ind > d.indent && !hasPrefix(body[ind:], "--- ")
	case contCompiler:
		return !blank && (ind > 0 || bytes.Contains(body, []byte(": note: ")))
	case contTraceback:
		if blank {
			return false
		}
		if ind == 0 {
			d.left = 1 // the exception line ends the traceback: take it, then stop
			// (Line decrements left after continues returns true)
		}
		return true
	case contStack:
		t := body[ind:]
		return ind > 0 && (hasPrefix(t, "at ") || hasPrefix(t, "... ")) ||
			hasPrefix(t, "Caused by: ") || hasPrefix(t, "Suppressed: ")
	case contPID:
		// "==PID==    at 0x...: f (x.c:6)", "==PID==  Address ...": the
		// report's lines, indented after the prefix; not "==PID== " alone.
		p := pidPrefix(body)
		return p > 0 && indentOf(body[p:]) >= 2
	case contRust:
		return !blank && (ind > 0 || rustGutter(body))
	case contPytestE:
		if hasPrefix(body, "E ") || body == nil || len(body) == 1 && body[0] == 'E' {
			return true
		}
		if !blank && ind == 0 && bytes.Contains(body, []byte(".py:")) {
			d.left = 1
			return true
		}
	}
	return false
}

// rustGutter reports whether body is a line of rustc's snippet that starts
// at column 0: a numbered source line ("12 |     let x = y;") or "...".
func rustGutter(body []byte) bool {
	i := 0
	for i < len(body) && isDigit(body[i]) {
		i++
	}
	if i > 0 {
		for i < len(body) && body[i] == ' ' {
			i++
		}
		return i < len(body) && body[i] == '|'
	}
	return hasPrefix(body, "...")
}

func isBlank(s string) bool { return len(bytes.TrimSpace([]byte(s))) == 0 }

func isBlankBytes(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

package highlight

import "bytes"

// Parallel is a Detector fed by blocks whose work is split between two
// goroutines: the caller's classifies each block (the prefilter's anchors,
// the candidate lines' rules: Block's classify, pure but for the rules'
// cache, which only it uses) while a goroutine of its own runs the state
// machine over the blocks classified before (apply). On an error-dense
// output, where a third of the lines are hits, each half is about half of
// the work, and the machine has two cores. What it finds is what a Detector
// fed the same blocks finds: the same classification, applied in the same
// order.
//
// The first parallelMin bytes are fed inline, as to a Detector: most
// outputs are small, and a goroutine and the blocks' copies would cost
// them more than they save. Memory stays bounded: at most parallelBlocks
// blocks are copied and waiting. The zero value is not usable: call
// NewParallel. Call Finish once, at the end, even after no Block.
type Parallel struct {
	d      *Detector
	fed    int64 // bytes fed so far (the classifier's count)
	inline int64 // bytes fed inline before the goroutine starts (parallelMin)
	shapes *matchCache

	work chan parallelMsg // to the goroutine, once started
	free chan parallelMsg // blocks and classes the goroutine is done with
	done chan struct{}
	made int // blocks made so far
}

type parallelMsg struct {
	first int64
	b     []byte
	cls   *blockClass
	gap   bool
}

const (
	parallelMin    = 1 << 20 // bytes fed inline before the goroutine starts
	parallelBlocks = 4       // blocks classified and waiting, at most
)

// NewParallel returns a Parallel with the given limits.
func NewParallel(opt Options) *Parallel {
	d := New(opt)
	return &Parallel{d: d, shapes: d.shapes, inline: parallelMin}
}

// Block feeds b, lines first, first+1, ..., as Detector.Block does, and
// returns the number of lines it holds. b is not kept.
func (p *Parallel) Block(first int64, b []byte) int64 {
	if p.work == nil && p.fed+int64(len(b)) <= p.inline {
		p.fed += int64(len(b))
		return p.d.Block(first, b)
	}
	if p.work == nil {
		p.start()
	}
	m := p.buffer()
	m.first, m.b, m.gap = first, append(m.b[:0], b...), false
	m.cls.classify(m.b, p.shapes)
	p.fed += int64(len(b))
	p.work <- m
	n := int64(bytes.Count(b, nl))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// Gap is Detector.Gap, in its place among the blocks.
func (p *Parallel) Gap() {
	if p.work == nil {
		p.d.Gap()
		return
	}
	m := p.buffer()
	m.gap = true
	p.work <- m
}

// Finish waits for the blocks fed to be applied and returns what the
// Detector found (see Detector.Finish).
func (p *Parallel) Finish() Result {
	if p.work != nil {
		close(p.work)
		<-p.done
	}
	return p.d.Finish()
}

func (p *Parallel) start() {
	p.work = make(chan parallelMsg, parallelBlocks-1)
	p.free = make(chan parallelMsg, parallelBlocks)
	p.done = make(chan struct{})
	go p.run()
}

// buffer returns a block and its classes to fill: a new one while fewer
// than parallelBlocks are made, else one the goroutine is done with.
func (p *Parallel) buffer() parallelMsg {
	select {
	case m := <-p.free:
		return m
	default:
	}
	if p.made < parallelBlocks {
		p.made++
		return parallelMsg{cls: &blockClass{}}
	}
	return <-p.free
}

func (p *Parallel) run() {
	defer close(p.done)
	for m := range p.work {
		if m.gap {
			p.d.Gap()
		} else {
			p.d.apply(m.first, m.b, m.cls)
		}
		p.free <- m
	}
}

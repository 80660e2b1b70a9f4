package highlight

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/truncate"
)

// TestParallelIsDetector: Parallel, the classification on the caller's
// goroutine and the state machine on its own, finds what a Detector fed
// the same blocks finds, gaps between them included: from the first byte
// on (inline 0) and after the inline start.
func TestParallelIsDetector(t *testing.T) {
	outs := append([][]byte{quickErrorLog(), logText(testenv.Size(64<<10, 256<<10))}, sampleOutputs(t)...)
	// The quick run feeds blocks of one size (4 KiB: the more block edges,
	// the more the two goroutines hand over) to the corpus as tests load it
	// (its generated cases smaller) and generated logs of 256 and 64 KiB;
	// TOOLD_LONG=1 adds 64 KiB blocks and logs of 1 MiB and 256 KiB.
	blocks := []int{4 << 10}
	if testenv.Long() {
		blocks = append(blocks, 64<<10)
	}
	// Each output is cleaned and cut once per block size, and the Detector's
	// result (which the inline start does not change) made once per
	// options: what Parallel is compared with is the same. The quick run
	// takes one of the options and one inline start per output, in turn
	// (see quickPick: of every four outputs, one meets each pair; the
	// error-dense log the small options, which push out most groups), half
	// the work; TOOLD_LONG=1 every pair on every output.
	opts := []Options{{MaxGroups: 2, MaxGroupLines: 3, MaxLineBytes: 16}, {}}
	for i, out := range outs {
		for _, block := range blocks {
			bs := cleanBlocks(out, block)
			for _, opt := range quickPick(opts, i) {
				want := feedCleanBlocks(t, New(opt), bs)
				inlines := quickPick([]int64{0, int64(len(out) / 2)}, i/2)
				for _, inline := range inlines {
					p := NewParallel(opt)
					p.inline = inline
					if got := feedCleanBlocks(t, p, bs); !reflect.DeepEqual(got, want) {
						t.Fatalf("output %d, %+v, inline %d, blocks of %d:\nParallel %+v\nDetector %+v", i, opt, inline, block, got, want)
					}
				}
			}
		}
	}
}

// quickOutput is a corpus output as the quick run's comparisons of two
// ways to the same result take it (Block and Line, Parallel and Detector,
// pruned and full templates): one over 24 KiB keeps its first and last 8
// KiB and 4 KiB either side of each of its keys, cut to whole lines and
// joined in order (7.7 MB of outputs become 1.6; at 32 and 8 KiB they were
// 3.9 MB, which cost the quick run ~3 CPU-s under -race and met no code
// path more: the bulk cut is lines of the shapes kept). Both ways are fed the
// same bytes, so a difference between them still shows; what is left out
// is the bulk of the long outputs' repeated lines (a log's thousands of
// INFO records, a listing's names), while the lines around each failure,
// the outputs' starts and ends, and every short output stay whole.
// TOOLD_LONG=1 takes every output whole.
func quickOutput(out []byte, keys []string) []byte {
	const edge, around = 8 << 10, 4 << 10
	if testenv.Long() || len(out) <= 3*edge {
		return out
	}
	spans := [][2]int{{0, edge}, {len(out) - edge, len(out)}}
	for _, k := range keys {
		if i := bytes.Index(out, []byte(k)); i >= 0 {
			spans = append(spans, [2]int{max(0, i-around), min(len(out), i+around)})
		}
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var kept []byte
	end := 0 // kept so far: out[:end] looked at
	for _, sp := range spans {
		from := max(end, bytes.LastIndexByte(out[:sp[0]], '\n')+1)
		to := len(out)
		if i := bytes.IndexByte(out[sp[1]:], '\n'); i >= 0 {
			to = sp[1] + i + 1
		}
		if to > from {
			kept, end = append(kept, out[from:to]...), to
		}
	}
	return kept
}

// blockFeeder is what Detector and Parallel share.
type blockFeeder interface {
	Block(first int64, b []byte) int64
	Gap()
	Finish() Result
}

// feedBlocks feeds d out's lines, cleaned, in blocks of whole lines of
// about size bytes (see cleanBlocks), one in seven of them skipped over as
// a gap (as exec skips what the spool drops) but for a benchmark (t nil).
func feedBlocks(t testing.TB, d blockFeeder, out []byte, size int) Result {
	return feedCleanBlocks(t, d, cleanBlocks(out, size))
}

// feedCleanBlocks is feedBlocks of blocks already cut (see cleanBlocks).
func feedCleanBlocks(t testing.TB, d blockFeeder, blocks [][]byte) Result {
	n := int64(1)
	for k, block := range blocks {
		lines := int64(bytes.Count(block, nl))
		if block[len(block)-1] != '\n' {
			lines++
		}
		if t != nil && k%7 == 6 {
			d.Gap()
		} else if got := d.Block(n, block); got != lines && t != nil {
			t.Fatalf("Block: %d lines, want %d", got, lines)
		}
		n += lines
	}
	return d.Finish()
}

// cleanBlocks cuts out into blocks of whole cleaned lines of about size
// bytes.
func cleanBlocks(out []byte, size int) [][]byte {
	var blocks [][]byte
	var block []byte
	for _, line := range bytes.SplitAfter(out, nl) {
		if len(line) == 0 {
			continue
		}
		block = append(block, truncate.CleanLine(line)...)
		if len(block) >= size {
			blocks, block = append(blocks, block), nil
		}
	}
	if len(block) > 0 {
		blocks = append(blocks, block)
	}
	return blocks
}

// BenchmarkParallelErrorDense is BenchmarkDetectErrorDense through
// Parallel: wall-clock MB/s with both goroutines, and MB per CPU second of
// the process (both goroutines' time).
func BenchmarkParallelErrorDense(b *testing.B) {
	data := errorLog(32 << 20)
	b.SetBytes(int64(len(data)))
	start := processCPU()
	for b.Loop() {
		p := NewParallel(Options{})
		if r := feedBlocks(nil, p, data, 256<<10); len(r.Kinds) == 0 {
			b.Fatal("no kinds found")
		}
	}
	if cpu := processCPU() - start; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}

func processCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

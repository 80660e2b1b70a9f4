package outline

import (
	"context"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sync/semaphore"
)

const (
	// goBudget bounds the memory of the go/ast parses under way in the
	// daemon at once, as estimated by goWeight: a parse waits for its
	// share, and a file whose parse alone would take more is outlined by
	// indent. So eight outlines of large generated files at once cost the
	// daemon at most this (they took 5.3 GiB), and as many small ones run
	// side by side.
	goBudget = 64 << 20
	// goTokenBytes is what go/ast holds a token (goShape's count), with
	// the garbage its parse leaves: 50-55 bytes measured on byte-literal
	// tables and on the compiler's generated files.
	goTokenBytes = 64
	// maxGoDepth bounds the nesting of brackets go/ast is given: its
	// recursion takes some kilobytes of stack a level. Written code nests
	// a few dozen deep.
	maxGoDepth = 512
	// goFree is the weight a parse runs without the budget: a Go file of
	// some 16,000 tokens (80 KB) or less. The budget's waiters are served
	// in turn: another session's outline of a small file must not wait
	// behind one session's large ones.
	goFree = 1 << 20
	// goScanBuf is the read size of the pass that measures the file.
	goScanBuf = 64 << 10
)

// goParses is the daemon's go/ast budget, in goWeight's bytes.
var goParses = semaphore.NewWeighted(goBudget)

// goWeight estimates the memory of parsing a file of size bytes and
// tokens tokens: the source and the syntax tree.
func goWeight(size, tokens int64) int64 { return size + tokens*goTokenBytes }

// buildGo outlines Go source with go/ast when its parse fits the budget:
// a first pass measures the file (tokens, nesting) without holding it,
// then the parse waits for its share of goBudget, reads the file whole
// and parses it. A file too large, too deep or whose parse would exceed
// the budget alone gives nil, nil: indent, streamed, in bounded memory.
func buildGo(ctx context.Context, path string, r io.ReaderAt, size, totalLines int64, opt Options) (*Outline, error) {
	if size > opt.MaxGoBytes {
		return nil, nil
	}
	shape := newGoShape((goBudget-size)/goTokenBytes, maxGoDepth)
	if err := measure(ctx, shape, r, size); err != nil {
		return nil, err
	}
	if shape.exceeded {
		return nil, nil
	}
	w := goWeight(size, shape.tokens)
	if w > goFree {
		if err := goParses.Acquire(ctx, w); err != nil {
			return nil, fmt.Errorf("outline: %w", err)
		}
		defer goParses.Release(w)
	}
	src := make([]byte, size)
	if _, err := r.ReadAt(src, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("outline: %w", err)
	}
	// The file may have changed since it was measured: measured again in
	// memory, which costs a tenth of the parse.
	again := newGoShape((goBudget-size)/goTokenBytes, maxGoDepth)
	again.Write(src)
	if again.exceeded || goWeight(size, again.tokens) > w {
		return nil, nil
	}
	o := goOutline(path, src, opt)
	if o != nil {
		ClampEnds(o, totalLines)
	}
	return o, nil
}

// measure streams the size bytes of r through shape, stopping early once
// the shape exceeds its bounds.
func measure(ctx context.Context, shape *goShape, r io.ReaderAt, size int64) error {
	buf := make([]byte, min(goScanBuf, size))
	for off := int64(0); off < size && !shape.exceeded; {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("outline: %w", err)
		}
		b := buf[:min(int64(len(buf)), size-off)]
		n, err := r.ReadAt(b, off)
		shape.Write(b[:n])
		off += int64(n)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("outline: %w", err)
		}
		if n == 0 {
			break // shorter than size: measured as far as it goes
		}
	}
	return nil
}

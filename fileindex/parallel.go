package fileindex

import (
	"bytes"
	"context"
	"hash/crc32"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// ParallelMin is the size from which a build from scratch counts newlines
// on several cores: each counts a range of whole checkpoint blocks, and the
// counts are stitched into checkpoints after. Below it one pass is as fast
// (a goroutine's start and a second buffer cost more than they save).
var ParallelMin int64 = 8 << 20

// maxWorkers bounds the cores one build takes.
const maxWorkers = 4

// workers is how many ranges a file of size bytes is counted in.
func workers(size, spacing int64) int {
	if size < ParallelMin {
		return 1
	}
	return int(min(int64(runtime.GOMAXPROCS(0)), maxWorkers, (size+spacing-1)/spacing))
}

// buildParallel indexes r's first id.size bytes with n goroutines, each
// counting the newlines of a range of checkpoint blocks with a buffer of
// its own (buf is the first's). The checkpoints are the prefix sums of the
// blocks' counts; the tail's CRC and the last byte are read apart.
func buildParallel(ctx context.Context, r io.ReaderAt, id fileID, spacing int64, buf []byte, n int) (*index, error) {
	blocks := (id.size + spacing - 1) / spacing
	counts := make([]int64, blocks)
	per := (blocks + int64(n) - 1) / int64(n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var done atomic.Int64
	report := progressFrom(ctx)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		from, to := int64(w)*per, min(int64(w+1)*per, blocks)
		if from >= to {
			continue
		}
		b := buf
		if w > 0 {
			b = make([]byte, len(buf))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rep ProgressFunc
			if w == 0 {
				rep = report
			}
			errs[w] = countBlocks(ctx, r, from*spacing, min(to*spacing, id.size), spacing, counts, b, &done, id.size, rep)
			if errs[w] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if report != nil {
		report(id.size, id.size)
	}
	return stitch(r, id, spacing, counts, buf)
}

// countBlocks counts the newlines of [off, end) into counts, one a block.
func countBlocks(ctx context.Context, r io.ReaderAt, off, end, spacing int64, counts []int64, buf []byte, done *atomic.Int64, total int64, report ProgressFunc) error {
	for off < end {
		if err := ctx.Err(); err != nil {
			return err
		}
		if report != nil {
			report(done.Load(), total)
		}
		b := buf[:min(int64(len(buf)), end-off)]
		if err := readFull(r, b, off); err != nil {
			return err
		}
		done.Add(int64(len(b)))
		for len(b) > 0 {
			k := off / spacing
			piece := b[:min((k+1)*spacing-off, int64(len(b)))]
			counts[k] += int64(bytes.Count(piece, newline))
			off += int64(len(piece))
			b = b[len(piece):]
		}
	}
	return nil
}

// stitch makes the index from the blocks' counts, reading the tail block
// for its CRC and the file's last byte.
func stitch(r io.ReaderAt, id fileID, spacing int64, counts []int64, buf []byte) (*index, error) {
	cp := make([]int64, id.size/spacing+1)
	var total int64
	for k, c := range counts {
		total += c
		if k+1 < len(cp) {
			cp[k+1] = total
		}
	}
	ts := tailStart(id.size, spacing)
	tail := buf[:id.size-ts]
	if err := readFull(r, tail, ts); err != nil {
		return nil, err
	}
	return &index{
		spacing:  spacing,
		size:     id.size,
		newlines: total,
		lastNL:   len(tail) > 0 && tail[len(tail)-1] == '\n',
		cp:       cp,
		tailCRC:  crc32.Checksum(tail, castagnoli()),
		id:       id,
	}, nil
}

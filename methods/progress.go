package methods

import (
	"context"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// execProgress makes the request's progress, if it asked for any, follow
// the command spec runs: it sets spec.Observer (a Meter) and returns the
// function that stops the reports.
func execProgress(ctx context.Context, spec *exec.Spec) (stop func()) {
	if rpc.ProgressFrom(ctx) == nil {
		return func() {}
	}
	m := &exec.Meter{}
	spec.Observer = m
	return meterProgress(ctx, m)
}

// meterProgress reports m's readings as the request's progress until stop.
func meterProgress(ctx context.Context, m *exec.Meter) (stop func()) {
	return rpc.ProgressFrom(ctx).Poll(func() any {
		sn := m.Snapshot()
		return protocol.ExecProgress{
			Kind:      protocol.ProgressExec,
			ElapsedMs: sn.Elapsed.Milliseconds(),
			Stdout:    protocol.StreamCount{Lines: sn.Stdout.Lines, Bytes: sn.Stdout.Bytes},
			Stderr:    protocol.StreamCount{Lines: sn.Stderr.Lines, Bytes: sn.Stderr.Bytes},
			LastLine:  sn.LastLine,
		}
	})
}

// indexProgress returns ctx with the request's progress, if it asked for
// any, following the index builds done under it.
func indexProgress(ctx context.Context) context.Context {
	prog := rpc.ProgressFrom(ctx)
	if prog == nil {
		return ctx
	}
	return fileindex.WithProgress(ctx, func(done, total int64) {
		prog.Report(protocol.IndexProgress{Kind: protocol.ProgressIndex, BytesDone: done, BytesTotal: total})
	})
}

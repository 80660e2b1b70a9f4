package methods

import (
	"context"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/rpc"
)

// ExecProgress is the value of an exec's $/progress notifications.
type ExecProgress struct {
	Kind      string      `json:"kind"` // "exec"
	ElapsedMs int64       `json:"elapsedMs"`
	Stdout    StreamCount `json:"stdout"`
	Stderr    StreamCount `json:"stderr"`
	LastLine  string      `json:"lastLine"`
}

// StreamCount is how much one stream has printed so far.
type StreamCount struct {
	Lines int64 `json:"lines"`
	Bytes int64 `json:"bytes"`
}

// IndexProgress is the value of the $/progress notifications of a read
// that builds a file's line index.
type IndexProgress struct {
	Kind       string `json:"kind"` // "index"
	BytesDone  int64  `json:"bytesDone"`
	BytesTotal int64  `json:"bytesTotal"`
}

// execProgress makes the request's progress, if it asked for any, follow
// the command spec runs: it sets spec.Observer (a Meter) and returns the
// function that stops the reports.
func execProgress(ctx context.Context, spec *exec.Spec) (stop func()) {
	prog := rpc.ProgressFrom(ctx)
	if prog == nil {
		return func() {}
	}
	m := &exec.Meter{}
	spec.Observer = m
	return prog.Poll(func() any { return meterProgress(m) })
}

// meterProgress is a Meter's reading as the wire carries it.
func meterProgress(m *exec.Meter) ExecProgress {
	sn := m.Snapshot()
	return ExecProgress{
		Kind:      "exec",
		ElapsedMs: sn.Elapsed.Milliseconds(),
		Stdout:    StreamCount{Lines: sn.Stdout.Lines, Bytes: sn.Stdout.Bytes},
		Stderr:    StreamCount{Lines: sn.Stderr.Lines, Bytes: sn.Stderr.Bytes},
		LastLine:  sn.LastLine,
	}
}

// indexProgress returns ctx with the request's progress, if it asked for
// any, following the index builds done under it.
func indexProgress(ctx context.Context) context.Context {
	prog := rpc.ProgressFrom(ctx)
	if prog == nil {
		return ctx
	}
	return fileindex.WithProgress(ctx, func(done, total int64) {
		prog.Report(IndexProgress{Kind: "index", BytesDone: done, BytesTotal: total})
	})
}

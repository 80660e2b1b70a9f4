package fileindex

import "context"

// ProgressFunc is told how far an index build has read: done of total
// bytes. It is called on the building goroutine before each block is read
// (about every MiB), so it must be quick.
type ProgressFunc func(done, total int64)

type progressKey struct{}

// WithProgress returns ctx carrying fn: an index built for a File.Index
// (or a read) under that context reports to it. A build that another
// request started reports to that request's function only.
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

func progressFrom(ctx context.Context) ProgressFunc {
	fn, _ := ctx.Value(progressKey{}).(ProgressFunc)
	return fn
}

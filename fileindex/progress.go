package fileindex

import (
	"context"
	"io"
)

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

// Feed is a writer that an index build from scratch feeds the file's bytes
// to, in order, as it reads them: an outline made in the pass that builds
// the index. Fed says the build ran and W saw every byte of the File.
type Feed struct {
	W   io.Writer
	Fed bool
}

type feedKey struct{}

// WithFeed returns ctx carrying fd: a File.Index under that context that
// builds the index from scratch writes every block it reads to fd.W. An
// index taken from the cache, extended, or built by another request feeds
// nothing; fd.Fed stays false and the caller reads the file itself.
func WithFeed(ctx context.Context, fd *Feed) context.Context {
	return context.WithValue(ctx, feedKey{}, fd)
}

func feedFrom(ctx context.Context) *Feed {
	fd, _ := ctx.Value(feedKey{}).(*Feed)
	return fd
}

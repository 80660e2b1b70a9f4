package methods

import (
	"context"

	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/seen"
)

// ifChanged compares window w of f with what the session saw of those
// lines; it records nothing (remember does, once w is cut). When none changed, w becomes an unchanged
// answer: empty content, Unchanged and a notice that says so; when some
// did, w keeps its lines and Changed names them. Lines the session never
// read are not changed: a window with some is never unchanged, and its
// notice names them; a window of which it read no line (a first read), or
// one that is part of one long line, is left as it is.
func (svc *Service) ifChanged(ctx context.Context, f *fileindex.File, w *protocol.Window, lr *lineRequest) error {
	var res seen.Result
	err := svc.withHashes(ctx, f, w, func(hashes []uint64) {
		res = svc.seen().Check(seen.Key{Session: lr.session, Path: f.Path()}, w.StartLine, hashes, w.TotalLines)
	})
	if err != nil {
		return err
	}
	switch {
	case !res.Known:
		// Not a line of the window was read before: a first read.
	case res.Unchanged:
		w.Content, w.Unchanged, w.ClippedLines = "", true, 0
		w.Notice = ptr(notice.Unchanged(w.StartLine, w.EndLine))
	default:
		for _, r := range res.Changed {
			w.Changed = append(w.Changed, protocol.LineRange{FromLine: r[0], ToLine: r[1]})
		}
		say := notice.Reread(w.StartLine, w.EndLine, res.Changed, res.Unseen, res.Moved)
		w.Notice = ptr(notice.Join(say, deref(w.Notice)))
	}
	return nil
}

// remember records window w of f as what the session saw of those lines,
// for a later read with ifChanged: a session remembers every window it
// read (the contract), with ifChanged or not.
func (svc *Service) remember(ctx context.Context, f *fileindex.File, w *protocol.Window, lr *lineRequest) error {
	return svc.withHashes(ctx, f, w, func(hashes []uint64) {
		svc.seen().Record(seen.Key{Session: lr.session, Path: f.Path()}, w.StartLine, hashes, w.TotalLines)
	})
}

// withHashes calls use with the hashes of window w's lines, within the
// store's memory budget for the work; not for a window that holds no whole
// line.
func (svc *Service) withHashes(ctx context.Context, f *fileindex.File, w *protocol.Window, use func(hashes []uint64)) error {
	release, err := svc.seen().Work(ctx, w.EndLine-w.StartLine+1)
	if err != nil {
		return err
	}
	defer release()
	hashes, err := windowHashes(f, w)
	if hashes != nil && err == nil {
		use(hashes)
	}
	return err
}

// windowHashes hashes each line of window w of f; nil for a window that
// holds no whole line (empty, or part of one long line).
func windowHashes(f *fileindex.File, w *protocol.Window) ([]uint64, error) {
	if w.PartialLine || w.EndLine < w.StartLine {
		return nil, nil
	}
	raw := make([]byte, w.EndByte-w.StartByte)
	if _, err := f.ReadAt(raw, w.StartByte); err != nil {
		return nil, err
	}
	return seen.HashLines(raw), nil
}

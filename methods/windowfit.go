package methods

import (
	"context"

	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
)

// A window whose params bound its rendering (render.maxBytes: toold mcp's)
// is cut here, once, to the most lines (by bytes: the most bytes) whose
// rendering (notice.WindowText: numbered lines, then the notice) fits, as
// a smaller limit (maxBytes) would cut it. Only the window given is
// recorded as what the session saw. A read of a large file with no range
// (render.outlineOver) is answered with its outline and first lines.

// cutLines cuts w (base, the window's file facts, then lineWindow) by lr,
// and fits its rendering in lr.render bytes; compare (ifChanged's) says
// what changed in each cut, which records nothing.
func cutLines(f *fileindex.File, w *protocol.Window, req *lineRequest, compare func() error) error {
	base, lr := *w, *req // lr's sizes change as the window is fitted

	cut := func() error {
		*w = base
		if err := lineWindow(f, w, &lr); err != nil {
			return err
		}
		capNotice(f, w)
		return compare()
	}
	if err := cut(); err != nil || lr.render <= 0 {
		return err
	}
	if shown := int(w.EndLine - w.StartLine + 1); shown > 1 && !w.PartialLine {
		fits, err := fitRendered(w, lr.render, shown, func(n int) error { lr.Limit = n; return cut() })
		if err != nil || fits {
			return err
		}
		lr.Limit = 1
		if err := cut(); err != nil {
			return err
		}
	}
	_, err := fitRendered(w, lr.render, len(w.Content), func(n int) error { lr.MaxBytes = n; return cut() })
	return err
}

// cutBytes cuts w (base, the window's file facts, then byteWindow) by br,
// and fits its rendering in br.render bytes.
func cutBytes(f *fileindex.File, w *protocol.Window, req *byteRequest) error {
	base, br := *w, *req // br's size changes as the window is fitted

	cut := func() error {
		*w = base
		if err := byteWindow(f, w, &br); err != nil {
			return err
		}
		capNotice(f, w)
		if br.lead != "" {
			w.Notice = ptr(notice.Join(br.lead, deref(w.Notice)))
		}
		return nil
	}
	if err := cut(); err != nil || br.render <= 0 {
		return err
	}
	_, err := fitRendered(w, br.render, len(w.Content), func(n int) error { br.maxBytes = n; return cut() })
	return err
}

// fitRendered leaves w cut by cut(n) for the largest n below shown (the
// size it was cut with) whose rendering is at most budget bytes, and
// reports whether one is: else w is cut by cut(1). A rendering that fits
// already is left as it is.
func fitRendered(w *protocol.Window, budget, shown int, cut func(n int) error) (bool, error) {
	if notice.WindowTextLen(w) <= budget {
		return true, nil
	}
	best, lo, hi := 0, 1, shown-1
	for lo <= hi {
		mid := lo + (hi-lo)/2
		if err := cut(mid); err != nil {
			return false, err
		}
		if notice.WindowTextLen(w) <= budget {
			best, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return best > 0, cut(max(best, 1))
}

// capNotice says in w's notice that f was read to the cap of a snapshot
// when w ends there.
func capNotice(f *fileindex.File, w *protocol.Window) {
	if f.Cut() && w.EndByte == w.TotalBytes {
		w.Notice = ptr(notice.Join(deref(w.Notice), notice.ReadToCap(fileindex.MaxSnapshotBytes)))
	}
}

// isLarge says whether lr, a read, is answered with its file's outline and
// first lines: it gives no range, outline or ifChanged, and f is over
// render.outlineOver bytes.
func (lr *lineRequest) isLarge(f *fileindex.File) bool {
	return lr.outlineOver > 0 && f.Size() > lr.outlineOver && !lr.ranged && !lr.outline && !lr.ifChanged
}

// largeWindow answers read lr of f, a large text file (lr.isLarge), with
// f's outline (at most MCPOutlineMaxBytes) and its first lines (at most
// MCPFirstLines, MCPFirstBytes), which the session saw; or with none of
// its lines when line 1 alone is longer than that (a minified file), the
// notice naming the readBytes call that slices it. It reports false, w
// untouched, for a file that has no outline: that read is answered as
// asked.
func (svc *Service) largeWindow(ctx context.Context, f *fileindex.File, w *protocol.Window, sniff []byte, lr *lineRequest) (bool, error) {
	o := *w
	ol := *lr
	ol.offset, ol.outline, ol.MaxBytes = 1, true, protocol.MCPOutlineMaxBytes
	if err := svc.outlineWindow(ctx, f, &o, sniff, &ol); err != nil {
		return false, err
	}
	if o.Outline == nil || len(o.Outline.Entries) == 0 {
		return false, nil
	}
	first := *lr
	first.offset, first.Limit, first.MaxBytes = 1, protocol.MCPFirstLines, protocol.MCPFirstBytes
	fw := *w
	fw.TotalLines = o.TotalLines
	if err := lineWindow(f, &fw, &first); err != nil {
		return false, err
	}
	o.StartLine, o.StartByte = 1, 0
	o.Truncated, o.TruncatedBy = true, ptr(protocol.ByLines)
	if fw.PartialLine {
		o.Content, o.EndLine, o.EndByte = "", 0, 0
		o.TruncatedBy, o.Next = ptr(protocol.ByBytes), &protocol.Next{StartByte: ptr(int64(0))}
		o.Notice = ptr(notice.Join(deref(o.Notice), notice.LargeFileLongLine(o.TotalBytes, o.TotalLines, lr.MaxBytes)))
		*w = o
		return true, nil
	}
	o.Content, o.EndLine, o.EndByte, o.ClippedLines = fw.Content, fw.EndLine, fw.EndByte, fw.ClippedLines
	o.Truncated, o.Next = o.EndLine < o.TotalLines, &protocol.Next{Offset: ptr(o.EndLine + 1)}
	if !o.Truncated {
		o.TruncatedBy, o.Next = nil, nil
	}
	o.Notice = ptr(notice.Join(deref(o.Notice), notice.LargeFile(o.TotalBytes, o.EndLine, o.TotalLines)))
	*w = o
	if lr.session == "" {
		return true, nil
	}
	return true, svc.remember(ctx, f, w, lr)
}

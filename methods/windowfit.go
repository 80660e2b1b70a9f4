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
		if err := compare(); err != nil {
			return err
		}
		capNotice(f, w) // after compare, which may answer unchanged
		return nil
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
// MCPFirstLines, MCPFirstBytes, and the read's limit and maxBytes), which
// the session saw; line 1 alone when it is longer than that but fits the
// read's maxBytes; or none of its lines when line 1 alone is longer (a
// minified file), the notice naming the readBytes call that slices it.
// The first lines are fitted to render.maxBytes as a window's are. It
// reports false, w untouched, for a file that has no outline, or whose
// outline and first line do not fit render.maxBytes: that read is
// answered as asked.
func (svc *Service) largeWindow(ctx context.Context, f *fileindex.File, w *protocol.Window, sniff []byte, lr *lineRequest) (bool, error) {
	o, asked := *w, *w
	ol := *lr
	ol.offset, ol.outline, ol.MaxBytes = 1, true, protocol.MCPOutlineMaxBytes
	if err := svc.outlineWindow(ctx, f, &o, sniff, &ol); err != nil {
		return false, err
	}
	if o.Outline == nil || len(o.Outline.Entries) == 0 {
		return false, nil
	}
	first := *lr
	first.offset, first.Limit, first.MaxBytes = 1, min(lr.Limit, protocol.MCPFirstLines), min(lr.MaxBytes, protocol.MCPFirstBytes)
	cut := func(n int) error { first.Limit = n; return firstLines(f, w, &o, &first, lr.MaxBytes) }
	if err := cut(first.Limit); err != nil {
		return false, err
	}
	if w.EndLine == 0 && first.MaxBytes < lr.MaxBytes {
		// Line 1 is longer than the first lines' bytes: it is shown alone
		// when it fits a window.
		first.MaxBytes = lr.MaxBytes
		if err := cut(1); err != nil {
			return false, err
		}
	}
	if shown := int(w.EndLine); lr.render > 0 && shown > 1 {
		if _, err := fitRendered(w, lr.render, shown, cut); err != nil {
			return false, err
		}
	}
	if lr.render > 0 && notice.WindowTextLen(w) > lr.render {
		*w = asked
		return false, nil
	}
	if lr.session == "" {
		return true, nil
	}
	return true, svc.remember(ctx, f, w, lr)
}

// firstLines makes w the outline window o with the first lines of f that
// lr (from line 1) asks for: a line 1 longer than lr.MaxBytes gives
// none, the notice naming the readBytes call that slices line 1 in
// windows of readMax bytes (the read's maxBytes).
func firstLines(f *fileindex.File, w, o *protocol.Window, lr *lineRequest, readMax int) error {
	fw := *o
	fw.Outline, fw.Notice = nil, nil
	if err := lineWindow(f, &fw, lr); err != nil {
		return err
	}
	*w = *o
	w.StartLine, w.StartByte = 1, 0
	if fw.PartialLine {
		w.Content, w.EndLine, w.EndByte, w.Truncated = "", 0, 0, true
		// A read is in line mode: next is {offset}, and a read of line 1
		// (a range) is answered as asked, with its first slice.
		w.TruncatedBy, w.Next = ptr(protocol.ByBytes), &protocol.Next{Offset: ptr(int64(1))}
		w.Notice = ptr(notice.Join(deref(o.Notice), notice.LargeFileLongLine(o.TotalBytes, o.TotalLines, readMax, lr.byteCall)))
		return nil
	}
	w.Content, w.EndLine, w.EndByte, w.ClippedLines = fw.Content, fw.EndLine, fw.EndByte, fw.ClippedLines
	w.Truncated, w.TruncatedBy, w.Next = fw.Truncated, fw.TruncatedBy, fw.Next
	say := deref(o.Notice)
	if fw.ClippedLines > 0 {
		// The first lines' own notice says how to read a clipped line whole.
		say = notice.Join(say, deref(fw.Notice))
	}
	w.Notice = ptr(notice.Join(say, notice.LargeFile(o.TotalBytes, w.EndLine, o.TotalLines, lr.byteCall)))
	return nil
}

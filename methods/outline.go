package methods

import (
	"context"
	"fmt"

	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/outline"
	"github.com/toold/toold/protocol"
)

// outlineBuf is the read size of an outline's own pass over a file whose
// index was already built.
const outlineBuf = 256 << 10

// outlineWindow fills w, the window of a text file f, with f's outline: an
// empty content and w.Outline cut to lr.MaxBytes. A streamed format is fed
// by the pass that builds the line index when this request builds it, and
// by a pass of its own when the index was cached.
func (svc *Service) outlineWindow(ctx context.Context, f *fileindex.File, w *protocol.Window, sniff []byte, lr *lineRequest) error {
	format := outline.Detect(lr.detectPath, sniff)
	opts := outline.Options{FromLine: lr.offset}
	if svc.Runner != nil {
		opts.Start = svc.Runner.Start
	}
	var o *outline.Outline
	ctagsMissing := false
	if sc := outline.NewScanner(format, opts); sc == nil {
		if err := f.Index(indexProgress(ctx)); err != nil {
			return err
		}
		var err error
		if o, err = outline.Build(ctx, format, f.Path(), f, f.Size(), f.Lines(), opts); err != nil {
			return err
		}
		ctagsMissing = o == nil && format == outline.Ctags && outline.LookCtags(opts.Start) == ""
	}
	if o == nil {
		var err error
		if o, err = streamOutline(ctx, f, outline.NewScanner(orIndent(format), opts)); err != nil {
			return err
		}
	}
	w.TotalLines = f.Lines()
	outline.ClampEnds(o, w.TotalLines)
	outline.Since(o, lr.offset)
	later := int64(0) // the first line after offset that holds an entry
	for _, e := range o.Entries {
		if e.Line > lr.offset {
			later = e.Line
			break
		}
	}
	next := outline.Fit(o, lr.MaxBytes)
	// The outline is paged as a window is: from offset, and next names
	// the line where the entries left out at the end start. Entries left
	// out of the page's first line (a minified JSON's one line) cannot be
	// paged by line: the next page starts at the line after, and the
	// notice says how to see them (more maxBytes, or the line by bytes).
	var stuck *notice.LongLine
	if next > 0 && next <= lr.offset {
		var err error
		if stuck, err = longLine(f, next, lr); err != nil {
			return err
		}
		next = later
	}
	w.StartLine, w.EndLine = lr.offset, lr.offset-1
	w.Outline = toProtocol(o)
	if next > 0 || stuck != nil {
		w.Truncated = true
		w.TruncatedBy = ptr(protocol.ByBytes)
	}
	if next > 0 {
		w.Next = &protocol.Next{Offset: ptr(next)}
	}
	n, err := outlineNotice(f, o, w, lr, ctagsMissing, next)
	if err != nil {
		return err
	}
	if stuck != nil {
		n = notice.Join(n, notice.OutlineLongLine(*stuck))
	}
	w.Notice = ptr(n)
	return nil
}

// longLine gives the facts of line n of f for a notice that names the
// readBytes calls that read it.
func longLine(f *fileindex.File, n int64, lr *lineRequest) (*notice.LongLine, error) {
	start, err := f.LineStart(n)
	if err != nil {
		return nil, err
	}
	end, err := lineEnd(f, n)
	if err != nil {
		return nil, err
	}
	return &notice.LongLine{Line: n, StartByte: start, Bytes: end - start, ByteCall: byteCall(lr),
		MaxBytes: lr.MaxBytes, MaxWindowBytes: protocol.MaxWindowBytes}, nil
}

// byteCall is how notices name the call that reads lr's file by bytes.
func byteCall(lr *lineRequest) string {
	if lr.byteCall != "" {
		return lr.byteCall
	}
	return "readBytes"
}

// orIndent is format when it is streamed, else indent (go or ctags that
// gave nothing).
func orIndent(format string) string {
	if format == outline.Go || format == outline.Ctags {
		return outline.Indent
	}
	return format
}

// streamOutline feeds f to sc: through the index build when it runs now,
// else in a pass of its own.
func streamOutline(ctx context.Context, f *fileindex.File, sc outline.Scanner) (*outline.Outline, error) {
	fd := &fileindex.Feed{W: sc}
	if err := f.Index(fileindex.WithFeed(indexProgress(ctx), fd)); err != nil {
		return nil, err
	}
	if !fd.Fed {
		buf := make([]byte, min(outlineBuf, f.Size()))
		for off := int64(0); off < f.Size(); {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			b := buf[:min(int64(len(buf)), f.Size()-off)]
			if _, err := f.ReadAt(b, off); err != nil {
				return nil, err
			}
			sc.Write(b)
			off += int64(len(b))
		}
	}
	return sc.Finish(f.Lines()), nil
}

func toProtocol(o *outline.Outline) *protocol.Outline {
	return &protocol.Outline{Format: o.Format, Entries: o.Entries, TotalEntries: o.TotalEntries, Truncated: o.Truncated}
}

// outlineNotice says what the outline covers and names the read of one
// entry: the longest top-level one; by bytes when its lines are more than
// a read gives (a minified file's one line).
func outlineNotice(f *fileindex.File, o *outline.Outline, w *protocol.Window, lr *lineRequest, ctagsMissing bool, next int64) (string, error) {
	call := "read"
	if lr.byteCall != "" {
		call = lr.byteCall
	}
	if w.TotalBytes == 0 {
		return notice.Window(notice.WindowFacts{}), nil
	}
	if o.TotalEntries == 0 {
		return notice.OutlineEmpty(o.Format, w.TotalLines, call), nil
	}
	facts := notice.OutlineFacts{Format: o.Format, Shown: len(o.Entries), Total: o.TotalEntries, TotalLines: w.TotalLines,
		TotalBytes: w.TotalBytes, MaxBytes: lr.MaxBytes, MaxWindowBytes: protocol.MaxWindowBytes, Truncated: o.Truncated, Call: call, Summary: o.Summary,
		CtagsMissing: ctagsMissing, FromLine: lr.offset, Next: next}
	if len(o.Entries) == 0 {
		return notice.Outline(facts), nil // none fits in maxBytes: the notice says so
	}
	ex := o.Entries[0]
	for _, e := range o.Entries {
		if e.Depth == 1 && e.EndLine-e.Line > ex.EndLine-ex.Line {
			ex = e
		}
	}
	facts.ExampleLine, facts.ExampleEndLine, facts.ExampleName = ex.Line, ex.EndLine, ex.Name
	if len(facts.ExampleName) > 60 {
		facts.ExampleName = fmt.Sprintf("%.60s…", facts.ExampleName)
	}
	start, err := f.LineStart(ex.Line)
	if err != nil {
		return "", err
	}
	end, err := lineEnd(f, ex.Line)
	if err != nil {
		return "", err
	}
	if lr.readMax > 0 && end-start > int64(lr.readMax) {
		// Its first line alone is more than a read gives.
		facts.ExampleStartByte, facts.ExampleBytes, facts.ByteCall = start, end-start, byteCall(lr)
		facts.ReadBytesMax = protocol.MaxWindowBytes
	}
	return notice.Outline(facts), nil
}

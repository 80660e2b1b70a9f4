package methods

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"unicode/utf8"

	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/spool"
	"github.com/toold/toold/truncate"
)

// lineRequest is a window by lines: read, and page without startByte.
type lineRequest struct {
	offset int64
	truncate.LineOptions
	byteCall string // how notices name the call that reads on by bytes; "" is readBytes
	readMax  int    // the session's read maxBytes: what a read an outline's notice names gets
	outline  bool   // answer with the outline instead of lines
	// detectPath is the path whose extension chooses the outline's format:
	// the file's for read, "" for a spool (its content decides).
	detectPath  string
	ifChanged   bool
	session     string // whose reads ifChanged compares with
	ranged      bool   // offset or limit given
	render      int    // the most bytes of the rendered window (render.maxBytes); 0: none
	outlineOver int64  // answer a read with no range of a larger file with its outline and first lines (isLarge)
}

// byteRequest is a window by bytes: readBytes, and page with startByte.
type byteRequest struct {
	startByte int64
	maxBytes  int
	clean     bool
	byteCall  string
	render    int    // the most bytes of the rendered window (render.maxBytes); 0: none
	lead      string // a notice that heads the window's (page's params it ignores)
}

// opener opens the file a window reads; each attempt opens it anew.
type opener func() (*os.File, error)

// window reads one window of path, opened by open, by lines when lr is set,
// else by bytes. A file that changes under the read (it shrank, or a line
// moved) is read again once; a second change is -32001 "changed while read".
func (svc *Service) window(ctx context.Context, path string, open opener, lr *lineRequest, br *byteRequest) (*protocol.Window, error) {
	w, err := svc.windowOnce(ctx, path, open, lr, br)
	if errors.Is(err, fileindex.ErrChanged) {
		w, err = svc.windowOnce(ctx, path, open, lr, br)
	}
	if errors.Is(err, fileindex.ErrChanged) {
		return nil, rpc.Errorf(protocol.CodeNoSuchFile, map[string]string{"path": path}, "%s", notice.ChangedWhileRead(path))
	}
	if err != nil {
		return nil, fileError(path, err)
	}
	return w, nil
}

// windowOnce is one attempt of window; its errors are unmapped.
func (svc *Service) windowOnce(ctx context.Context, path string, open opener, lr *lineRequest, br *byteRequest) (*protocol.Window, error) {
	osf, err := open()
	if err != nil {
		return nil, err
	}
	f, err := svc.Files.OpenFile(ctx, path, osf)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w := &protocol.Window{Path: path, StartLine: 1, TotalBytes: f.Size()}

	sniff := make([]byte, min(f.Size(), 8192))
	if _, err := f.ReadAt(sniff, 0); err != nil {
		return nil, err
	}
	if truncate.IsBinary(sniff) {
		return w, binaryWindow(f, w, sniff, lr != nil)
	}
	if lr != nil && lr.outline {
		return w, svc.outlineWindow(ctx, f, w, sniff, lr)
	}
	if err := f.Index(indexProgress(ctx)); err != nil {
		return nil, err
	}
	w.TotalLines = f.Lines()
	if lr == nil {
		return w, cutBytes(f, w, br)
	}
	if lr.isLarge(f) {
		if done, err := svc.largeWindow(ctx, f, w, sniff, lr); done || err != nil {
			return w, err
		}
	}
	compare := func() error {
		if lr.ifChanged && lr.session != "" {
			return svc.ifChanged(ctx, f, w, lr)
		}
		return nil
	}
	if err := cutLines(f, w, lr, compare); err != nil || lr.session == "" {
		return w, err
	}
	return w, svc.remember(ctx, f, w, lr)
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// binaryWindow fills the window of a file that is not text: an image small enough
// to send, or a notice that says what the file is.
func binaryWindow(f *fileindex.File, w *protocol.Window, sniff []byte, lineMode bool) error {
	w.Binary = true
	w.EndLine = w.StartLine - 1
	mime := http.DetectContentType(sniff)
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		if !lineMode {
			break
		}
		if f.Size() > protocol.MaxImageBytes {
			w.Notice = ptr(notice.ImageTooLarge(mime, f.Size(), protocol.MaxImageBytes))
			return nil
		}
		data := make([]byte, f.Size())
		if _, err := f.ReadAt(data, 0); err != nil {
			return err
		}
		// The image is the window's content: binary is for files not shown.
		w.Binary = false
		w.Image = &protocol.Image{MimeType: mime, Data: base64.StdEncoding.EncodeToString(data)}
		w.Notice = ptr(notice.ImageReturned(mime, f.Size()))
		return nil
	}
	w.Notice = ptr(notice.Binary(mime, f.Size()))
	return nil
}

// lineWindow cuts the window of whole lines that starts at line lr.offset.
func lineWindow(f *fileindex.File, w *protocol.Window, lr *lineRequest) error {
	w.StartLine = lr.offset
	facts := notice.WindowFacts{StartLine: lr.offset, TotalLines: w.TotalLines, TotalBytes: w.TotalBytes,
		MaxBytes: lr.MaxBytes, MaxLineChars: lr.MaxLineChars, MaxReadBytes: protocol.MaxWindowBytes, ByteCall: lr.byteCall}
	if lr.offset > w.TotalLines {
		w.EndLine = lr.offset - 1
		w.StartByte, w.EndByte = w.TotalBytes, w.TotalBytes
		facts.PastEnd = true
		w.Notice = windowNotice(facts)
		return nil
	}
	start, err := f.LineStart(lr.offset)
	if err != nil {
		return err
	}
	buf := make([]byte, min(int64(lr.MaxBytes+utf8.UTFMax), w.TotalBytes-start))
	if _, err := f.ReadAt(buf, start); err != nil {
		return err
	}
	cut := truncate.Lines(buf, start+int64(len(buf)) == w.TotalBytes, lr.LineOptions)
	w.Content = cut.Content
	w.EndLine = lr.offset + int64(cut.Lines) - 1
	w.StartByte, w.EndByte = start, start+int64(cut.Bytes)
	w.ClippedLines = cut.Clipped
	w.PartialLine = cut.Partial
	// truncated: the file goes on past endLine. A partial last line is
	// cut by the byte limit, but nothing follows it.
	w.Truncated = w.EndLine < w.TotalLines
	if w.EndByte < w.TotalBytes {
		w.TruncatedBy = ptr(cut.StoppedBy)
	}
	if w.Truncated {
		w.Next = &protocol.Next{Offset: ptr(w.EndLine + 1)}
	}
	facts.EndLine, facts.StartByte, facts.EndByte = w.EndLine, w.StartByte, w.EndByte
	facts.TruncatedBy, facts.Partial = cut.StoppedBy, cut.Partial
	if cut.Partial {
		end, err := lineEnd(f, lr.offset)
		if err != nil {
			return err
		}
		facts.PartialLineBytes, facts.PartialLineEnd = end-start, end
	}
	if cut.Clipped > 0 {
		facts.Clipped = cut.Clipped
		facts.ClippedLine = lr.offset + int64(cut.FirstClipped)
		facts.ClippedStart = start + int64(cut.FirstClippedAt)
		facts.ClippedLen = int64(cut.FirstClippedLen)
	}
	w.Notice = windowNotice(facts)
	return nil
}

// byteWindow cuts the window that starts at the line holding br.startByte:
// whole lines that fit, or a slice of that line when it alone is longer than
// br.maxBytes.
func byteWindow(f *fileindex.File, w *protocol.Window, br *byteRequest) error {
	facts := notice.WindowFacts{ByteMode: true, TotalLines: w.TotalLines, TotalBytes: w.TotalBytes, MaxBytes: br.maxBytes, ByteCall: br.byteCall}
	if br.startByte >= w.TotalBytes {
		w.StartLine, w.EndLine = w.TotalLines+1, w.TotalLines
		w.StartByte, w.EndByte = w.TotalBytes, w.TotalBytes
		if w.TotalBytes > 0 {
			w.Notice = ptr(notice.PastEndBytes(br.startByte, w.TotalBytes))
		} else {
			w.Notice = windowNotice(facts)
		}
		return nil
	}
	line, start, err := f.LineAt(br.startByte)
	if err != nil {
		return err
	}
	end, err := lineEnd(f, line)
	if err != nil {
		return err
	}
	w.StartLine, w.EndLine = line, line
	if end-start > int64(br.maxBytes) {
		err = lineSlice(f, w, br, &facts, line, start, end)
	} else {
		err = wholeLines(f, w, br, line, start)
	}
	if err != nil {
		return err
	}
	// truncated: the file goes on past endLine; next goes on by bytes,
	// inside a long last line too.
	w.Truncated = w.EndLine < w.TotalLines
	if w.EndByte < w.TotalBytes {
		w.TruncatedBy = ptr(protocol.ByBytes)
		w.Next = &protocol.Next{StartByte: ptr(w.EndByte)}
		facts.TruncatedBy = protocol.ByBytes
	}
	facts.StartLine, facts.EndLine, facts.StartByte, facts.EndByte = w.StartLine, w.EndLine, w.StartByte, w.EndByte
	w.Notice = windowNotice(facts)
	return nil
}

// lineSlice fills w with a slice of line (bytes start..end of the file),
// which alone is longer than br.maxBytes, from br.startByte moved forward to
// a character boundary.
func lineSlice(f *fileindex.File, w *protocol.Window, br *byteRequest, facts *notice.WindowFacts, line, start, end int64) error {
	from := max(start, br.startByte-utf8.UTFMax+1)
	buf := make([]byte, min(end, br.startByte+int64(br.maxBytes)+utf8.UTFMax)-from)
	if _, err := f.ReadAt(buf, from); err != nil {
		return err
	}
	skip := truncate.SkipForward(buf, int(br.startByte-from))
	if from+int64(skip) >= end {
		// startByte fell in the line's last character: an empty window
		// that goes on at the next line.
		w.StartLine, w.EndLine = line+1, line
		w.StartByte, w.EndByte = end, end
		return nil
	}
	n := truncate.Slice(buf[skip:], br.maxBytes)
	part := buf[skip : skip+n]
	if br.clean {
		part = truncate.CleanLine(part)
	}
	w.Content = truncate.Valid(part)
	w.StartByte, w.EndByte = from+int64(skip), from+int64(skip+n)
	w.PartialLine = true
	facts.Partial, facts.PartialLineBytes, facts.PartialLineEnd = true, end-start, end
	return nil
}

// wholeLines fills w with the whole lines from line (at byte start) that
// fit in br.maxBytes.
func wholeLines(f *fileindex.File, w *protocol.Window, br *byteRequest, line, start int64) error {
	buf := make([]byte, min(int64(br.maxBytes+utf8.UTFMax), w.TotalBytes-start))
	if _, err := f.ReadAt(buf, start); err != nil {
		return err
	}
	cut := truncate.Lines(buf, start+int64(len(buf)) == w.TotalBytes,
		truncate.LineOptions{MaxBytes: br.maxBytes, Clean: br.clean})
	w.Content = cut.Content
	w.EndLine = line + int64(cut.Lines) - 1
	w.StartByte, w.EndByte = start, start+int64(cut.Bytes)
	return nil
}

// lineEnd returns the byte offset just past line n, its ending included.
func lineEnd(f *fileindex.File, n int64) (int64, error) {
	if n >= f.Lines() {
		return f.Size(), nil
	}
	return f.LineStart(n + 1)
}

func windowNotice(f notice.WindowFacts) *string {
	if s := notice.Window(f); s != "" {
		return &s
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// checkRead checks read's params against the session's defaults l.
func checkRead(p *protocol.ReadParams, l protocol.ReadLimits) (*lineRequest, error) {
	var lr lineRequest
	var err error
	if lr.offset, err = count("offset", p.Offset, 1, 1, 1<<62); err != nil {
		return nil, err
	}
	if lr.Limit, err = intCount("limit", p.Limit, l.Limit, 1, protocol.MaxLimitLines); err != nil {
		return nil, err
	}
	if lr.MaxBytes, err = intCount("maxBytes", p.MaxBytes, l.MaxBytes, 1, protocol.MaxWindowBytes); err != nil {
		return nil, err
	}
	if lr.MaxLineChars, err = intCount("maxLineChars", p.MaxLineChars, l.MaxLineChars, 0, protocol.MaxLineChars); err != nil {
		return nil, err
	}
	if lr.render, err = renderBudget(p.Render); err != nil {
		return nil, err
	}
	if p.Render != nil {
		if lr.outlineOver, err = count("render.outlineOver", p.Render.OutlineOver, 0, 0, 1<<62); err != nil {
			return nil, err
		}
	}
	lr.outline, lr.ifChanged, lr.detectPath = p.Outline, p.IfChanged, p.Path
	lr.ranged = p.Offset != nil || p.Limit != nil
	lr.readMax = l.MaxBytes
	return &lr, nil
}

// checkReadBytes checks readBytes' params against the session's defaults l.
func checkReadBytes(p *protocol.ReadBytesParams, l protocol.ReadBytesLimits) (*byteRequest, error) {
	var br byteRequest
	var err error
	if br.startByte, err = count("startByte", p.StartByte, 0, 0, 1<<62); err != nil {
		return nil, err
	}
	if br.maxBytes, err = intCount("maxBytes", p.MaxBytes, l.MaxBytes, 1, protocol.MaxWindowBytes); err != nil {
		return nil, err
	}
	if br.render, err = renderBudget(p.Render); err != nil {
		return nil, err
	}
	return &br, nil
}

// Read answers read: a window of whole lines of a file.
func (svc *Service) Read(ctx context.Context, s *Session, params []byte) (any, error) {
	var p protocol.ReadParams
	if err := rpc.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	lr, err := checkRead(&p, s.Limits.Read)
	if err != nil {
		return nil, err
	}
	path, err := s.resolve("path", p.Path)
	if err != nil {
		return nil, err
	}
	lr.session = s.ID
	return short(svc.window(ctx, path, func() (*os.File, error) { return s.open(path) }, lr, nil))
}

// short gives an unchanged window in its short form (protocol.UnchangedWindow).
func short(w *protocol.Window, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if w.Unchanged {
		return w.Short(), nil
	}
	return w, nil
}

// ReadBytes answers readBytes: a window of a file by byte offset.
func (svc *Service) ReadBytes(ctx context.Context, s *Session, params []byte) (any, error) {
	var p protocol.ReadBytesParams
	if err := rpc.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	br, err := checkReadBytes(&p, s.Limits.ReadBytes)
	if err != nil {
		return nil, err
	}
	path, err := s.resolve("path", p.Path)
	if err != nil {
		return nil, err
	}
	return svc.window(ctx, path, func() (*os.File, error) { return s.open(path) }, nil, br)
}

// Page answers page: a window of one of the session's spooled outputs.
func (svc *Service) Page(ctx context.Context, s *Session, params []byte) (any, error) {
	var p protocol.PageParams
	if err := rpc.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Spool == "" {
		return nil, rpc.InvalidParams("spool", "required: the id of a spool from an exec result")
	}
	clean := p.Clean == nil || *p.Clean
	var lr *lineRequest
	var br *byteRequest
	var err error
	if p.StartByte != nil {
		bp := protocol.ReadBytesParams{StartByte: p.StartByte, MaxBytes: p.MaxBytes, Render: p.Render}
		if br, err = checkReadBytes(&bp, s.Limits.ReadBytes); err != nil {
			return nil, err
		}
		br.clean, br.byteCall = clean, "page spool="+p.Spool
	} else {
		if lr, err = checkRead(&p.ReadParams, s.Limits.Read); err != nil {
			return nil, err
		}
		lr.Clean, lr.byteCall, lr.detectPath, lr.session = clean, "page spool="+p.Spool, "", s.ID
	}
	if s.Spool == nil {
		return nil, spoolError(p.Spool, spool.ErrNoSpool)
	}
	path, err := s.Spool.Find(p.Spool)
	if err != nil {
		return nil, spoolError(p.Spool, err)
	}
	open := func() (*os.File, error) {
		f, err := s.Spool.Open(p.Spool)
		if err != nil {
			return nil, spoolError(p.Spool, err)
		}
		return f, nil
	}
	if ignored := lineParams(&p); len(ignored) > 0 {
		br.lead = notice.ByteModeIgnores(ignored)
	}
	w, err := svc.window(ctx, path, open, lr, br)
	if err != nil {
		return nil, spoolError(p.Spool, err)
	}
	return short(w, nil)
}

// lineParams names the params of read's line mode that a page with
// startByte (byte mode, readBytes' params) was given and does not use.
func lineParams(p *protocol.PageParams) []string {
	if p.StartByte == nil {
		return nil
	}
	var names []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"offset", p.Offset != nil}, {"limit", p.Limit != nil}, {"maxLineChars", p.MaxLineChars != nil},
		{"outline", p.Outline}, {"ifChanged", p.IfChanged}} {
		if f.set {
			names = append(names, f.name)
		}
	}
	return names
}

// spoolError says why spool id cannot be paged: evicted, replaced, or never
// this session's; other errors name the spool instead of its path.
func spoolError(id string, err error) error {
	data := map[string]string{"spool": id}
	var rerr *rpc.Error
	var evicted *spool.EvictedError
	switch {
	case errors.As(err, &evicted):
		return rpc.Errorf(protocol.CodeNoSuchFile, data, "%s", notice.SpoolEvicted(id, evicted.Daemon, evicted.Quota))
	case errors.Is(err, spool.ErrReplaced):
		return rpc.Errorf(protocol.CodeAccessDenied, data, "access denied: spool %s: %v", id, err)
	case errors.Is(err, spool.ErrNoSpool):
		return rpc.Errorf(protocol.CodeNoSuchFile, data,
			"no such spool: %q (spools belong to the session that ran the command and end with it)", id)
	case errors.As(err, &rerr) && rerr.Code == protocol.CodeNoSuchFile:
		rerr.Data = data
	}
	return err
}

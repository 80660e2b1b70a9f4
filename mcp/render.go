package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// render turns method's JSON result into the content a model reads.
func render(method string, raw json.RawMessage) ([]sdk.Content, error) {
	return renderFitted(method, raw, 0)
}

// renderFitted is render, with an exec's or a process's streams fitted in
// budget bytes (fitStreams); 0 is no budget.
// Notices name the tools as toold mcp names them: its session is
// initialized with notices.toolNames (Server.sessionInit).
func renderFitted(method string, raw json.RawMessage, budget int) ([]sdk.Content, error) {
	switch method {
	case protocol.MethodRead, protocol.MethodReadBytes, protocol.MethodPage:
		var w protocol.Window
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("decoding the window: %w", err)
		}
		return renderWindow(&w)
	case protocol.MethodExec:
		var r protocol.ExecResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the exec result: %w", err)
		}
		if budget > 0 {
			return []sdk.Content{&sdk.TextContent{Text: fitStreams(notice.Ended(&r), &r.Stdout, &r.Stderr, r.Notice, budget)}}, nil
		}
		return []sdk.Content{&sdk.TextContent{Text: execText(&r)}}, nil
	case protocol.MethodProcessRead, protocol.MethodProcessWait:
		var r protocol.ProcessOutput
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the process output: %w", err)
		}
		if budget > 0 {
			return []sdk.Content{&sdk.TextContent{Text: fitStreams(notice.ProcessState(&r), &r.Stdout, &r.Stderr, r.Notice, budget)}}, nil
		}
		return []sdk.Content{&sdk.TextContent{Text: processText(&r)}}, nil
	case protocol.MethodGrep:
		var r protocol.GrepResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the grep result: %w", err)
		}
		return []sdk.Content{&sdk.TextContent{Text: grepText(&r)}}, nil
	case protocol.MethodFind, protocol.MethodLs:
		var r protocol.EntriesResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the %s result: %w", method, err)
		}
		return []sdk.Content{&sdk.TextContent{Text: entriesText(&r)}}, nil
	case protocol.MethodProcessKill:
		var p protocol.ProcessInfo
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("decoding the process: %w", err)
		}
		return []sdk.Content{&sdk.TextContent{Text: notice.ProcessLine(p)}}, nil
	case protocol.MethodProcessWrite:
		var r protocol.ProcessWriteResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the write: %w", err)
		}
		text := notice.Written(r.Written)
		if r.Notice != nil {
			text += "\n" + *r.Notice
		}
		return []sdk.Content{&sdk.TextContent{Text: text}}, nil
	case protocol.MethodProcessList:
		var r struct{ Processes []protocol.ProcessInfo }
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the process list: %w", err)
		}
		return []sdk.Content{&sdk.TextContent{Text: processListText(r.Processes)}}, nil
	}
	// stats and anything else: the JSON itself is the most readable form.
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("decoding the result: %w", err)
	}
	return []sdk.Content{&sdk.TextContent{Text: b.String()}}, nil
}

// processListText is process_list's processes, one a line, oldest first.
func processListText(ps []protocol.ProcessInfo) string {
	if len(ps) == 0 {
		return notice.NoProcesses
	}
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = notice.ProcessLine(p)
	}
	return strings.Join(lines, "\n")
}

func renderWindow(w *protocol.Window) ([]sdk.Content, error) {
	if w.Image != nil {
		data, err := base64.StdEncoding.DecodeString(w.Image.Data)
		if err != nil {
			return nil, fmt.Errorf("decoding the image: %w", err)
		}
		c := []sdk.Content{&sdk.ImageContent{MIMEType: w.Image.MimeType, Data: data}}
		if w.Notice != nil {
			c = append(c, &sdk.TextContent{Text: *w.Notice})
		}
		return c, nil
	}
	return []sdk.Content{&sdk.TextContent{Text: windowText(w)}}, nil
}

// windowText is a window's content numbered as `cat -n` numbers it, then its
// notice on a line of its own. A binary window is its notice alone.
func windowText(w *protocol.Window) string {
	var b strings.Builder
	writeOutline(&b, w.Outline)
	if !w.Binary {
		n := w.StartLine
		for rest := w.Content; rest != ""; n++ {
			var line string
			line, rest = cutLine(rest)
			fmt.Fprintf(&b, "%6d\t%s\n", n, line)
		}
	}
	if w.Notice != nil {
		b.WriteString(*w.Notice)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// cutLine splits off s's first line without its ending (\n or \r\n).
func cutLine(s string) (line, rest string) {
	line, rest, found := strings.Cut(s, "\n")
	if found {
		line = strings.TrimSuffix(line, "\r")
	}
	return line, rest
}

// execText is how the command ended, then each stream that has output —
// head, the omitted lines and where to page them, tail — then the notice.
func execText(r *protocol.ExecResult) string {
	return streamsText(notice.Ended(r), &r.Stdout, &r.Stderr, r.Notice)
}

// processText is the process's state (and why a wait ended), then each
// stream's new output as exec renders it, then the notice.
func processText(r *protocol.ProcessOutput) string {
	return streamsText(notice.ProcessState(r), &r.Stdout, &r.Stderr, r.Notice)
}

// streamsText is head, then stdout and stderr where they have output, then
// the notice, one to a line.
func streamsText(head string, stdout, stderr *protocol.Stream, n *string) string {
	var b strings.Builder
	b.WriteString(head)
	b.WriteByte('\n')
	for _, st := range []struct {
		name string
		s    *protocol.Stream
	}{{"stdout", stdout}, {"stderr", stderr}} {
		if st.s.TotalBytes > 0 {
			writeStream(&b, st.name, st.s)
		}
	}
	if n != nil {
		b.WriteString(*n)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func writeStream(b *strings.Builder, name string, s *protocol.Stream) {
	b.WriteString(notice.StreamHeader(name) + "\n")
	spool := ""
	if s.Spool != nil {
		spool = s.Spool.ID
	}
	if s.Binary {
		b.WriteString(notice.BinaryOutput(s.TotalBytes, spool) + "\n")
		return
	}
	writeLines(b, s.Head)
	if o := s.Omitted; o != nil {
		writeMiddle(b, o, s.Highlights, spool)
	}
	writeLines(b, s.Tail)
	writeKinds(b, s.Kinds)
}

// writeKinds writes a line for each kind of failure lines the stream found
// more of than it shows (at most 10, most frequent first): what a model of
// an error-dense output needs to decide what to page.
func writeKinds(b *strings.Builder, ks []protocol.Kind) {
	for _, k := range ks {
		b.WriteString(notice.KindOfFailure(k) + "\n")
	}
}

// writeMiddle writes the omitted middle: with no highlights one line that
// names it; else, in output order, a line for each gap and each group's
// lines numbered as cat -n numbers them, so that no group reads as if it
// followed the head, after a line that says why it is shown (its reason).
func writeMiddle(b *strings.Builder, o *protocol.Omitted, hs []protocol.Highlight, spool string) {
	if len(hs) == 0 {
		b.WriteString(notice.OmittedLines(o, spool) + "\n")
		return
	}
	next := o.FromLine
	for _, h := range hs {
		if h.FromLine > next {
			b.WriteString(notice.OmittedGap(next, h.FromLine-1, spool) + "\n")
		}
		if why := notice.HighlightReason(h); why != "" {
			b.WriteString(why + "\n")
		}
		n := h.FromLine
		for rest := h.Text; rest != ""; n++ {
			var line string
			line, rest = cutLine(rest)
			fmt.Fprintf(b, "%6d\t%s\n", n, line)
		}
		next = h.ToLine + 1
	}
	if next <= o.ToLine {
		b.WriteString(notice.OmittedGap(next, o.ToLine, spool) + "\n")
	}
}

// writeLines writes text as it is, ending it with one newline (output whose
// last line has none gets one, so that the next line stands on its own).
func writeLines(b *strings.Builder, text string) {
	if text == "" {
		return
	}
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
}

// errorResult is a daemon's JSON-RPC error as a failed tool call, which a
// model sees and can act on (a protocol error it would not see). It has no
// structuredContent: clients check that against the tool's outputSchema,
// the result's; the text names the code.
func errorResult(e *rpc.Error) *sdk.CallToolResult {
	return &sdk.CallToolResult{
		Content: []sdk.Content{&sdk.TextContent{Text: notice.DaemonError(e.Code, e.Message)}},
		IsError: true,
	}
}

// grepText is grep's matches as grep -n prints them with context: a match
// as path:line:text, a context line as path-line-text, "--" between groups
// of lines that do not touch; then the notice.
func grepText(r *protocol.GrepResult) string {
	var b strings.Builder
	for _, f := range r.Files {
		last := -1
		for _, m := range f.Matches {
			first := m.Line - len(m.Before)
			if last >= 0 && first > last+1 {
				b.WriteString("--\n")
			}
			for i, l := range m.Before {
				fmt.Fprintf(&b, "%s-%d-%s\n", f.Path, first+i, l)
			}
			fmt.Fprintf(&b, "%s:%d:%s\n", f.Path, m.Line, m.Text)
			for i, l := range m.After {
				fmt.Fprintf(&b, "%s-%d-%s\n", f.Path, m.Line+1+i, l)
			}
			last = m.Line + len(m.After)
		}
	}
	if r.Notice != nil {
		b.WriteString(*r.Notice + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// entriesText is find's or ls' entries, one a line, then the notice.
func entriesText(r *protocol.EntriesResult) string {
	var b strings.Builder
	for _, e := range r.Entries {
		b.WriteString(e + "\n")
	}
	if r.Notice != nil {
		b.WriteString(*r.Notice + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

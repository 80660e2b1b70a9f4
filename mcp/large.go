package mcp

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// outlineLarge makes the read tool's answer for a file over
// protocol.MCPOutlineBytes read with no offset or limit (as Zed's agent
// answers it): the file's outline, then its first lines, and a notice that
// says how to read a range. raw is the daemon's window for the call as the
// model made it, returned as it is for any other read. The JSON-RPC read is
// not changed: this is the read tool's rendering of two daemon calls.
func outlineLarge(ctx context.Context, client *rpc.Client, params any, raw json.RawMessage) json.RawMessage {
	args := map[string]json.RawMessage{}
	switch p := params.(type) {
	case json.RawMessage:
		json.Unmarshal(p, &args)
	case map[string]json.RawMessage:
		args = p
	}
	var w protocol.Window
	if json.Unmarshal(raw, &w) != nil {
		return raw
	}
	if w.Unchanged {
		// The daemon's short form (protocol.UnchangedWindow) lacks fields
		// the tool's outputSchema requires: give the window whole.
		if b, err := json.Marshal(&w); err == nil {
			return b
		}
		return raw
	}
	if !isLarge(args, &w) {
		return raw
	}
	var o protocol.Window
	err := client.Call(ctx, protocol.MethodRead, map[string]any{"path": w.Path, "outline": true, "maxBytes": protocol.MCPOutlineMaxBytes}, &o)
	if err != nil || o.Outline == nil || len(o.Outline.Entries) == 0 {
		return raw
	}
	if w.PartialLine {
		if b := outlineLongLine(&w, &o); b != nil {
			return b
		}
		return raw
	}
	first := firstLines(w.Content, protocol.MCPFirstLines, protocol.MCPFirstBytes)
	n := int64(strings.Count(first, "\n"))
	// The window of those lines: the session saw them (the daemon records
	// this read for a later ifChanged; the window read first was not), and
	// clipped lines are shorter than the file's, so its bytes are right.
	var fw protocol.Window
	if client.Call(ctx, protocol.MethodRead, map[string]any{"path": w.Path, "limit": n}, &fw) == nil && w.ClippedLines > 0 {
		w = fw
		first = fw.Content
	}
	o.Content, o.StartLine, o.EndLine = first, 1, n
	o.StartByte, o.EndByte = 0, w.StartByte+int64(len(first))
	if w.ClippedLines > 0 {
		o.EndByte, o.ClippedLines = w.EndByte, w.ClippedLines
	}
	o.Truncated = n < o.TotalLines
	o.TruncatedBy, o.Next = ptr(protocol.ByLines), &protocol.Next{Offset: ptr(n + 1)}
	o.Notice = ptr(notice.Join(deref(o.Notice), notice.LargeFile(o.TotalBytes, n, o.TotalLines)))
	b, err := json.Marshal(&o)
	if err != nil {
		return raw
	}
	return b
}

// isLarge says whether a read of args that answered w is answered with the
// file's outline and first lines: a text file over MCPOutlineBytes read
// with no range (and no outline or ifChanged of its own), its first line
// whole or not.
func isLarge(args map[string]json.RawMessage, w *protocol.Window) bool {
	for _, k := range []string{"offset", "limit", "outline", "ifChanged"} {
		if _, ok := args[k]; ok {
			return false
		}
	}
	return !w.Binary && w.Image == nil && w.TotalBytes > protocol.MCPOutlineBytes
}

// outlineLongLine is outlineLarge's answer when the file's first line alone
// is longer than a window (minified JSON, a bundle): the outline and no
// lines, the notice naming the readBytes call that slices line 1. The
// session saw none of the file.
func outlineLongLine(w, o *protocol.Window) json.RawMessage {
	o.Content, o.StartLine, o.EndLine, o.StartByte, o.EndByte = "", 1, 0, 0, 0
	o.Truncated = true
	o.TruncatedBy, o.Next = ptr(protocol.ByBytes), &protocol.Next{StartByte: ptr(int64(0))}
	o.Notice = ptr(notice.Join(deref(o.Notice), notice.LargeFileLongLine(w.TotalBytes, o.TotalLines, protocol.MCPWindowBytes)))
	b, err := json.Marshal(o)
	if err != nil {
		return nil
	}
	return b
}

// firstLines is text's first whole lines, at most maxLines and maxBytes.
func firstLines(text string, maxLines, maxBytes int) string {
	end := 0
	for i := 0; i < maxLines; i++ {
		j := strings.IndexByte(text[end:], '\n')
		if j < 0 || end+j+1 > maxBytes {
			break
		}
		end += j + 1
	}
	return text[:end]
}

func ptr[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// writeOutline writes an outline's entries, one a line.
func writeOutline(b *strings.Builder, o *protocol.Outline) {
	if o == nil {
		return
	}
	for _, e := range o.Entries {
		b.WriteString(notice.OutlineEntry(e) + "\n")
	}
}

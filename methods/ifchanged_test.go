package methods

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toold/toold/protocol"
)

func numberedLines(n int, prefix string) []string {
	ls := make([]string, n)
	for i := range ls {
		ls[i] = fmt.Sprintf("%s line %d of the file\n", prefix, i+1)
	}
	return ls
}

func TestIfChanged(t *testing.T) {
	svc, s := newTestService(t)
	path := filepath.Join(s.Cwd, "f.txt")
	lines := numberedLines(5000, "v1")
	write := func() { os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644) }
	write()
	read := func(params map[string]any) *protocol.Window {
		params["path"], params["ifChanged"] = path, true
		return readJSON(t, svc, s, params)
	}

	w := read(map[string]any{})
	if w.Unchanged || w.Changed != nil || w.EndLine != 2000 || w.Content == "" {
		t.Fatalf("first read: unchanged %v changed %v lines %d-%d", w.Unchanged, w.Changed, w.StartLine, w.EndLine)
	}
	b, _ := json.Marshal(map[string]any{"path": path, "ifChanged": true})
	w, raw := readRaw(t, svc, s, b)
	reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 12, "result": json.RawMessage(raw)})
	if !w.Unchanged || w.Content != "" || *w.Notice != "[Lines 1-2000 unchanged since your last read]" || len(reply) >= 300 {
		t.Fatalf("re-read: unchanged %v, %d bytes on the wire: %s", w.Unchanged, len(reply), reply)
	}
	// A part of what was read is unchanged too.
	if w = read(map[string]any{"offset": 10, "limit": 5}); !w.Unchanged || *w.Notice != "[Lines 10-14 unchanged since your last read]" {
		t.Fatalf("a part: %v", *w.Notice)
	}

	lines[99], lines[499], lines[500] = "edited\n", "edited too\n", "and this\n"
	write()
	w = read(map[string]any{})
	want := []protocol.LineRange{{FromLine: 100, ToLine: 100}, {FromLine: 500, ToLine: 501}}
	if w.Unchanged || !reflect.DeepEqual(w.Changed, want) || !strings.HasPrefix(w.Content, "v1 line 1 ") {
		t.Fatalf("after 3 edits: changed %v", w.Changed)
	}
	if !strings.HasPrefix(*w.Notice, "[Changed since your last read: lines 100, 500-501 (3 lines). Showing lines 1-2000 of 5000") {
		t.Errorf("notice %q", *w.Notice)
	}

	// The whole file, then 10 lines inserted at its top.
	read(map[string]any{"limit": 5000, "maxBytes": protocol.MaxWindowBytes})
	lines = append(numberedLines(10, "new"), lines...)
	write()
	w = read(map[string]any{"limit": 5010, "maxBytes": protocol.MaxWindowBytes})
	if w.EndLine != 5010 || !reflect.DeepEqual(w.Changed, []protocol.LineRange{{FromLine: 1, ToLine: 10}}) {
		t.Fatalf("after inserting 10 lines: lines %d-%d changed %v", w.StartLine, w.EndLine, w.Changed)
	}
	// Lines that only moved are not changed, but not unchanged either.
	lines = append(numberedLines(5, "newer"), lines...)
	write()
	w = read(map[string]any{"offset": 2016, "limit": 100})
	if w.Unchanged || len(w.Changed) != 0 || w.Content == "" {
		t.Fatalf("moved lines: unchanged %v changed %v notice %q", w.Unchanged, w.Changed, *w.Notice)
	}

	// Another session has read nothing.
	other := &Session{ID: "other", Settings: s.Settings}
	if w, _ := readRaw(t, svc, other, b); w.Unchanged || w.Changed != nil {
		t.Fatalf("another session: %+v", w)
	}
}

// TestIfChangedWindows: a session remembers every window it read of a file,
// not only the last, and lines it never read are not changed.
func TestIfChangedWindows(t *testing.T) {
	lr := func(from, to int64) []protocol.LineRange { return []protocol.LineRange{{FromLine: from, ToLine: to}} }
	type step struct {
		offset, limit int
		cut           int // before the read, keep only the file's first cut lines
		edit          int // before the read, change this line
		unchanged     bool
		changed       []protocol.LineRange
		notice        string // a prefix of the notice
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"two windows, then the first again", []step{
			{offset: 1, limit: 10},
			{offset: 50, limit: 11, notice: "[Showing lines 50-60"},
			{offset: 1, limit: 10, unchanged: true, notice: "[Lines 1-10 unchanged"},
			{offset: 50, limit: 11, unchanged: true},
		}},
		{"two windows, then the file cut", []step{
			{offset: 1, limit: 10},
			{offset: 50, limit: 11},
			{offset: 1, limit: 100, cut: 40, notice: "[Not read before in this session: lines 11-40 (30 lines); the other lines are as you read them]"},
		}},
		{"two windows, then the whole file", []step{
			{offset: 1, limit: 20},
			{offset: 30, limit: 5},
			{offset: 1, limit: 100, notice: "[Not read before in this session: lines 21-29, 35-100 (75 lines)"},
			{offset: 1, limit: 100, unchanged: true},
		}},
		{"an edit in a window, a window never read", []step{
			{offset: 1, limit: 10},
			{offset: 5, limit: 20, edit: 7, changed: lr(7, 7), notice: "[Changed since your last read: line 7 (1 line); not read before: lines 11-24 (14 lines)"},
			{offset: 1, limit: 24, unchanged: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, s := newTestService(t)
			path := filepath.Join(s.Cwd, "f.txt")
			lines := numberedLines(100, "v1")
			for i, st := range tt.steps {
				if st.cut > 0 {
					lines = lines[:st.cut]
				}
				if st.edit > 0 {
					lines[st.edit-1] = "edited\n"
				}
				os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
				w := readJSON(t, svc, s, map[string]any{"path": path, "ifChanged": true, "offset": st.offset, "limit": st.limit})
				if w.Unchanged != st.unchanged || !reflect.DeepEqual(w.Changed, st.changed) || !strings.HasPrefix(deref(w.Notice), st.notice) {
					t.Fatalf("step %d (%d+%d): unchanged %v changed %v notice %q", i+1, st.offset, st.limit, w.Unchanged, w.Changed, deref(w.Notice))
				}
				if !st.unchanged && w.Content == "" {
					t.Fatalf("step %d: no content", i+1)
				}
			}
		})
	}
}

// TestIfChangedAfterPlainRead: a session remembers the windows it read
// without ifChanged too (the contract: "what each file looked like when it
// last read it"): the lines it was given, not those a render bound cut.
func TestIfChangedAfterPlainRead(t *testing.T) {
	svc, s := newTestService(t)
	path := filepath.Join(s.Cwd, "f.txt")
	os.WriteFile(path, []byte(strings.Join(numberedLines(300, "v1"), "")), 0o644)
	readJSON(t, svc, s, map[string]any{"path": path, "limit": 100})
	if w := readJSON(t, svc, s, map[string]any{"path": path, "limit": 100, "ifChanged": true}); !w.Unchanged {
		t.Fatalf("after a plain read: unchanged %v, notice %q", w.Unchanged, deref(w.Notice))
	}
	fitted := readJSON(t, svc, s, map[string]any{"path": path, "offset": 101, "limit": 100, "render": map[string]any{"maxBytes": 1500}})
	if fitted.EndLine < 101 || fitted.EndLine >= 200 {
		t.Fatalf("a read fitted to 1500 rendered bytes gave lines %d-%d", fitted.StartLine, fitted.EndLine)
	}
	if w := readJSON(t, svc, s, map[string]any{"path": path, "offset": 101, "limit": fitted.EndLine - 100, "ifChanged": true}); !w.Unchanged {
		t.Fatalf("the lines a fitted read gave were not recorded: %q", deref(w.Notice))
	}
	w := readJSON(t, svc, s, map[string]any{"path": path, "offset": 101, "limit": 100, "ifChanged": true})
	if w.Unchanged || w.Content == "" || w.Changed != nil {
		t.Fatalf("after a fitted read of lines 101-%d: unchanged %v changed %v", fitted.EndLine, w.Unchanged, w.Changed)
	}
	// The ifChanged read itself recorded lines 101-200.
	if w := readJSON(t, svc, s, map[string]any{"path": path, "offset": 101, "limit": 100, "ifChanged": true}); !w.Unchanged {
		t.Fatalf("after an ifChanged read: %q", deref(w.Notice))
	}
}

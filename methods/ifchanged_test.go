package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

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

func TestAlignWindow(t *testing.T) {
	h := func(s string) []uint64 {
		out := make([]uint64, len(s))
		for i, c := range s {
			out[i] = uint64(c)
		}
		return out
	}
	nums := func(from, n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(from + i)
		}
		return out
	}
	tests := []struct {
		old, nw   string
		oldFrom   int
		start     int64
		changed   [][2]int64
		unchanged bool
	}{
		{"abcdef", "abcdef", 1, 1, nil, true},
		{"abcdef", "abXdef", 1, 1, [][2]int64{{3, 3}}, false},
		{"abcdef", "XYabcd", 1, 1, [][2]int64{{1, 2}}, false},
		{"aaaaaa", "aaaaaa", 1, 1, nil, true},
		{"abcabc", "abcXabc", 1, 1, [][2]int64{{4, 4}}, false},
		{"abcdef", "cdef", 1, 3, nil, true},
		{"", "ab", 1, 1, nil, false}, // never read: not changed
		{"abcdef", "abcdefgh", 1, 1, nil, false},
		{"abcdef", "XYZabc", 4, 1, nil, false}, // read 4-9; 1-3 never read
	}
	for _, tt := range tests {
		from, to := int64(tt.oldFrom), int64(tt.oldFrom+len(tt.old)-1)
		seen := func(n int64) bool { return n >= from && n <= to }
		r := alignWindow(h(tt.old), nums(tt.oldFrom, len(tt.old)), h(tt.nw), tt.start, seen)
		if !reflect.DeepEqual(r.changed, tt.changed) || r.unchanged != tt.unchanged {
			t.Errorf("%q -> %q at %d: changed %v unchanged %v, want %v %v", tt.old, tt.nw, tt.start, r.changed, r.unchanged, tt.changed, tt.unchanged)
		}
	}
}

// TestSeenBound: the record of what sessions read stays within its bytes,
// the oldest files going first.
func TestSeenBound(t *testing.T) {
	st := newSeenStore(64 << 10)
	hs := make([]uint64, 1000) // 8 KB a file
	for i := 0; i < 100; i++ {
		st.compare(seenKey{"s", fmt.Sprint(i)}, 1, hs, 1000)
		if st.bytes > st.max {
			t.Fatalf("%d bytes kept, max %d", st.bytes, st.max)
		}
	}
	if _, ok := st.lru.Peek(seenKey{"s", "0"}); ok {
		t.Error("the oldest file is still kept")
	}
	if r := st.compare(seenKey{"s", "99"}, 1, hs, 1000); !r.unchanged {
		t.Error("the newest file was forgotten")
	}
}

func TestSeenPut(t *testing.T) {
	f := &seenFile{}
	f.put(10, []uint64{1, 2, 3})
	f.put(1, []uint64{9, 9})
	f.put(3, []uint64{7, 7, 7, 7, 7, 7, 7, 7}) // 3-10, joins both
	f.put(12, []uint64{5})
	want := []seenSpan{{start: 1, hashes: []uint64{9, 9, 7, 7, 7, 7, 7, 7, 7, 7, 2, 5}}}
	if !reflect.DeepEqual(f.spans, want) {
		t.Errorf("spans %+v", f.spans)
	}
}

// TestSeenAccounting: the store's byte count is the sum of its files'
// (it went below zero: each record took a file's bytes off twice, and
// nothing was evicted, 569 MiB held by one session paging a file), and it
// stays within its bound whichever way sessions page.
func TestSeenAccounting(t *testing.T) {
	const max = 1 << 20
	window := make([]uint64, 2000)
	for _, tt := range []struct {
		name  string
		start func(i int) int64 // the i-th read's first line
		files int
	}{
		{"forward", func(i int) int64 { return int64(i)*2000 + 1 }, 1},
		{"backward", func(i int) int64 { return 10_000_000 - int64(i)*2000 }, 1},
		{"rereads", func(i int) int64 { return 1 + int64(i%3)*1000 }, 1},
		{"apart", func(i int) int64 { return int64(i)*5000 + 1 }, 1},
		{"many files", func(i int) int64 { return 1 }, 50},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := newSeenStore(max)
			for i := range 400 {
				key := seenKey{"s", fmt.Sprint(i % tt.files)}
				st.record(key, tt.start(i), slices.Clone(window), 20_000_000)
				var sum int64
				for _, k := range st.lru.Keys() {
					f, _ := st.lru.Peek(k)
					if f.bytes != f.size() {
						t.Fatalf("read %d: a file counted %d bytes, holds %d", i, f.bytes, f.size())
					}
					sum += f.bytes
				}
				if st.bytes != sum || st.bytes > max || st.bytes < 0 {
					t.Fatalf("read %d: %d bytes counted, files hold %d, max %d", i, st.bytes, sum, max)
				}
			}
			// The last window read is still known.
			last := seenKey{"s", fmt.Sprint(399 % tt.files)}
			if r := st.compare(last, tt.start(399), slices.Clone(window), 20_000_000); !r.unchanged {
				t.Errorf("the last window read was forgotten: %+v", r)
			}
		})
	}
}

// TestSeenPutSpans: put keeps the spans sorted, disjoint and each line's
// newest hash, whatever the order of the windows (checked against a map).
func TestSeenPutSpans(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	f := &seenFile{}
	want := map[int64]uint64{}
	for i := range 3000 {
		start, n := 1+rnd.Int64N(20000), 1+rnd.IntN(300)
		if i%7 == 0 {
			n = 1 + rnd.IntN(6000) // past seenMergeMax
		}
		hs := make([]uint64, n)
		for k := range hs {
			hs[k] = rnd.Uint64()
			want[start+int64(k)] = hs[k]
		}
		f.put(start, hs)
	}
	got := map[int64]uint64{}
	for k, sp := range f.spans {
		if k > 0 && sp.start <= f.spans[k-1].end() {
			t.Fatalf("span %d (%d-%d) overlaps the one before (%d-%d)", k, sp.start, sp.end(), f.spans[k-1].start, f.spans[k-1].end())
		}
		for j, h := range sp.hashes {
			got[sp.start+int64(j)] = h
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("%d lines held, want %d, or some differ", len(got), len(want))
	}
	nums, hs := f.lines(500, 900, 1<<20)
	for k, n := range nums {
		if want[n] != hs[k] || n < 500 || n > 900 {
			t.Fatalf("lines 500-900: line %d", n)
		}
	}
}

// FuzzAlignWindow: whatever the old and new lines, the changed ranges lie in
// the window, rise and do not touch; a window equal to what was seen at the
// same numbers is unchanged, and every line not matched is in a range.
func FuzzAlignWindow(f *testing.F) {
	f.Add([]byte("abcdef"), []byte("abXdef"), uint8(1))
	f.Add([]byte("aaaa"), []byte("aaaaa"), uint8(3))
	f.Fuzz(func(t *testing.T, old, nw []byte, start uint8) {
		oh, nh := make([]uint64, len(old)), make([]uint64, len(nw))
		nums := make([]int64, len(old))
		for i, c := range old {
			oh[i], nums[i] = uint64(c%8), int64(start)+int64(i)
		}
		for i, c := range nw {
			nh[i] = uint64(c % 8)
		}
		seen := func(n int64) bool { return n >= int64(start) && n < int64(start)+int64(len(old)) }
		r := alignWindow(oh, nums, nh, int64(start), seen)
		from, to := int64(start), int64(start)+int64(len(nw))-1
		var n int64
		for i, c := range r.changed {
			if c[0] < from || c[1] > to || c[0] > c[1] || i > 0 && c[0] <= r.changed[i-1][1]+1 {
				t.Fatalf("ranges %v in %d-%d", r.changed, from, to)
			}
			n += c[1] - c[0] + 1
		}
		for _, c := range r.unseen {
			if c[0] < from || c[1] > to {
				t.Fatalf("unseen %v in %d-%d", r.unseen, from, to)
			}
		}
		if r.unchanged && (n > 0 || len(r.unseen) > 0) {
			t.Fatalf("unchanged with changes %v", r.changed)
		}
		if reflect.DeepEqual(oh, nh) && !r.unchanged {
			t.Fatalf("equal lines at equal numbers: changed %v moved %v", r.changed, r.moved)
		}
	})
}

// TestIfChangedAfterPlainRead: a session remembers the windows it read
// without ifChanged too (the contract: "what each file looked like when it
// last read it"), except a read with record: false.
func TestIfChangedAfterPlainRead(t *testing.T) {
	svc, s := newTestService(t)
	path := filepath.Join(s.Cwd, "f.txt")
	os.WriteFile(path, []byte(strings.Join(numberedLines(300, "v1"), "")), 0o644)
	readJSON(t, svc, s, map[string]any{"path": path, "limit": 100})
	if w := readJSON(t, svc, s, map[string]any{"path": path, "limit": 100, "ifChanged": true}); !w.Unchanged {
		t.Fatalf("after a plain read: unchanged %v, notice %q", w.Unchanged, deref(w.Notice))
	}
	readJSON(t, svc, s, map[string]any{"path": path, "offset": 101, "limit": 100, "record": false})
	w := readJSON(t, svc, s, map[string]any{"path": path, "offset": 101, "limit": 100, "ifChanged": true})
	if w.Unchanged || w.Content == "" || w.Changed != nil {
		t.Fatalf("after a read with record false: unchanged %v changed %v", w.Unchanged, w.Changed)
	}
	// The ifChanged read itself recorded lines 101-200.
	if w := readJSON(t, svc, s, map[string]any{"path": path, "offset": 101, "limit": 100, "ifChanged": true}); !w.Unchanged {
		t.Fatalf("after an ifChanged read: %q", deref(w.Notice))
	}
}

// TestSeenWork: comparing or recording a window waits for its share of
// the daemon's budget, at most the whole of it, and gives up with its
// context (64 requests of 256K-line windows held 400 MiB at once).
func TestSeenWork(t *testing.T) {
	st := newSeenStore(1 << 20)
	huge := &protocol.Window{StartLine: 1, EndLine: 1 << 30}
	release, err := st.work(context.Background(), huge) // more than the budget: all of it
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := st.work(ctx, &protocol.Window{StartLine: 1, EndLine: 20000}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("with the budget taken: %v", err)
	}
	// A window of read's default 2000 lines takes none of it.
	if r, err := st.work(context.Background(), &protocol.Window{StartLine: 1, EndLine: 2000}); err != nil {
		t.Errorf("a small window with the budget taken: %v", err)
	} else {
		r()
	}
	release()
	r2, err := st.work(context.Background(), &protocol.Window{StartLine: 1, EndLine: 20000})
	if err != nil {
		t.Fatal(err)
	}
	r2()
}

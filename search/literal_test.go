package search

import (
	"bytes"
	"strings"
	"testing"
)

// refIndex is what litFinder.index must answer: bytes.Index, on ASCII
// lower-cased s when fold.
func refIndex(s, lit []byte, fold bool) int {
	if fold {
		low := make([]byte, len(s))
		for i, c := range s {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			low[i] = c
		}
		s = low
	}
	return bytes.Index(s, lit)
}

func TestLitFinder(t *testing.T) {
	dense := strings.Repeat("(", 5000) + "(x"
	tests := []struct {
		s, lit string
		fold   bool
	}{
		{"EXPORT_SYMBOL(x);\nEXPORT_SYMBOL_GPL(sched_clock);", "EXPORT_SYMBOL_GPL(sched", false},
		{"no such thing", "EXPORT_SYMBOL_GPL(sched", false},
		{"Out Of Memory", "out of memory", true},
		{"out of mem\nOUT OF MEMORY!", "out of memory", true},
		{"OUT OF MEMOR", "out of memory", true},
		{"y", "y", true},
		{"Y", "y", true},
		{"", "y", true},
		{"", "ab", false},
		{"a", "ab", false},
		{"xab", "ab", false},
		{"abc", "", false},
		{"qqqq", "q", false},
		// The rare byte is everywhere: the finder falls back to bytes.Index.
		{dense, "(x", false},
		{dense, "((((((x", false},
		{dense + "((((((x", "((((((x", false},
		{strings.Repeat("(_", 3000), "(_(_(x", false},
		{strings.Repeat("(", 3000) + "((X", "((x", true},
		// Candidates at the very end of the buffer.
		{"zzzzzzzzqx", "qx", false},
		{"zzzzzzzzQX", "qx", true},
		{"zzzzzzzzq", "qx", false},
	}
	for _, tt := range tests {
		f := newLitFinder([]byte(tt.lit), tt.fold)
		if got, want := f.index([]byte(tt.s)), refIndex([]byte(tt.s), []byte(tt.lit), tt.fold); got != want {
			t.Errorf("index(%.40q, %q, fold %v) = %d, want %d", tt.s, tt.lit, tt.fold, got, want)
		}
	}
}

// The rarest byte is searched first, the next rarest checked second.
func TestLitFinderPicksRare(t *testing.T) {
	f := newLitFinder([]byte("EXPORT_SYMBOL_GPL(sched"), false)
	if f.c1 == 'E' || f.c1 == '_' || f.c1 == f.c2 && f.o1 == f.o2 {
		t.Errorf("EXPORT_SYMBOL_GPL(sched: looks for %q at %d, then %q at %d", f.c1, f.o1, f.c2, f.o2)
	}
	if f := newLitFinder([]byte("out of memory"), true); f.c1 == 'o' || f.c1 == ' ' {
		t.Errorf("out of memory: looks for %q", f.c1)
	}
	m, err := Compile(Query{Pattern: `static int \w+_probe\(`})
	must(t, err)
	if string(m.lit) != "_probe(" || len(m.also) != 1 || string(m.also[0]) != "static int " {
		t.Errorf(`static int \w+_probe\(: lit %q also %q`, m.lit, m.also)
	}
}

// FuzzLitFinder: the rare-byte search finds what bytes.Index finds.
func FuzzLitFinder(f *testing.F) {
	f.Add([]byte("EXPORT_SYMBOL_GPL(sched_clock)"), []byte("GPL(s"), false)
	f.Add([]byte("Out Of Memory"), []byte("of mem"), true)
	f.Add([]byte("((((((((((((((((((((((((((((((((((((((x"), []byte("((x"), false)
	f.Fuzz(func(t *testing.T, s, lit []byte, fold bool) {
		if fold {
			// As Compile gives it: lower-case ASCII.
			lit = bytes.ToLower(lit)
			for _, c := range lit {
				if c >= 0x80 {
					return
				}
			}
		}
		lf := newLitFinder(lit, fold)
		if got, want := lf.index(s), refIndex(s, lit, fold); got != want {
			t.Errorf("index(%q, %q, fold %v) = %d, want %d", s, lit, fold, got, want)
		}
	})
}

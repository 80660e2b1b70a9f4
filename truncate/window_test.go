package truncate

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLines(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		atEOF bool
		o     LineOptions
		want  LineWindow
	}{
		{"empty", "", true, LineOptions{Limit: 10, MaxBytes: 100},
			LineWindow{FirstClipped: -1}},
		{"all fit", "a\nb\nc", true, LineOptions{Limit: 10, MaxBytes: 100},
			LineWindow{Content: "a\nb\nc", Lines: 3, Bytes: 5, FirstClipped: -1}},
		{"limit", "a\nb\nc\n", true, LineOptions{Limit: 2, MaxBytes: 100},
			LineWindow{Content: "a\nb\n", Lines: 2, Bytes: 4, FirstClipped: -1, StoppedBy: ByLines}},
		{"limit exactly at end", "a\nb\n", true, LineOptions{Limit: 2, MaxBytes: 100},
			LineWindow{Content: "a\nb\n", Lines: 2, Bytes: 4, FirstClipped: -1}},
		{"bytes cut before an incomplete line", "aa\nbb\ncc", false, LineOptions{Limit: 10, MaxBytes: 8},
			LineWindow{Content: "aa\nbb\n", Lines: 2, Bytes: 6, FirstClipped: -1, StoppedBy: ByBytes}},
		{"buffer longer than MaxBytes", "aa\nbb\ncc\n", true, LineOptions{Limit: 10, MaxBytes: 7},
			LineWindow{Content: "aa\nbb\n", Lines: 2, Bytes: 6, FirstClipped: -1, StoppedBy: ByBytes}},
		{"newline as the last byte of the window", "aa\nbb\n", false, LineOptions{Limit: 10, MaxBytes: 6},
			LineWindow{Content: "aa\nbb\n", Lines: 2, Bytes: 6, FirstClipped: -1, StoppedBy: ByBytes}},
		{"crlf kept", "a\r\nb\r\n", true, LineOptions{Limit: 10, MaxBytes: 100},
			LineWindow{Content: "a\r\nb\r\n", Lines: 2, Bytes: 6, FirstClipped: -1}},
		{"first line too long: partial", "abcdefghij\n", false, LineOptions{Limit: 10, MaxBytes: 4},
			LineWindow{Content: "abcd", Lines: 1, Bytes: 4, FirstClipped: -1, StoppedBy: ByBytes, Partial: true}},
		{"partial cut on a character boundary", "ab日本\n", false, LineOptions{Limit: 10, MaxBytes: 4},
			LineWindow{Content: "ab", Lines: 1, Bytes: 2, FirstClipped: -1, StoppedBy: ByBytes, Partial: true}},
		{"partial sees the character past MaxBytes", "abc日本\n", false, LineOptions{Limit: 10, MaxBytes: 6},
			LineWindow{Content: "abc日", Lines: 1, Bytes: 6, FirstClipped: -1, StoppedBy: ByBytes, Partial: true}},
		{"clipped at characters, ending kept", "ééééé\r\nab\n", true, LineOptions{Limit: 10, MaxBytes: 100, MaxLineChars: 3},
			LineWindow{Content: "ééé\r\nab\n", Lines: 2, Bytes: 15, Clipped: 1, FirstClipped: 0, FirstClippedAt: 0, FirstClippedLen: 12}},
		{"no clipping at 0", "abcdef\n", true, LineOptions{Limit: 10, MaxBytes: 100},
			LineWindow{Content: "abcdef\n", Lines: 1, Bytes: 7, FirstClipped: -1}},
		{"invalid utf-8 shown as U+FFFD", "a\xffb\n", true, LineOptions{Limit: 10, MaxBytes: 100},
			LineWindow{Content: "a\uFFFDb\n", Lines: 1, Bytes: 4, FirstClipped: -1}},
		{"clean", "50%\r100%\n\x1b[31mred\x1b[0m\n", true, LineOptions{Limit: 10, MaxBytes: 100, Clean: true},
			LineWindow{Content: "100%\nred\n", Lines: 2, Bytes: 22, FirstClipped: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := []byte(tt.in)
			got := Lines(buf, tt.atEOF, tt.o)
			if got != tt.want {
				t.Errorf("Lines(%q, %v, %+v)\n got %+v\nwant %+v", tt.in, tt.atEOF, tt.o, got, tt.want)
			}
		})
	}
}

func TestCutBack(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want int
	}{
		{"abc", 2, 2},
		{"abc", 5, 3},
		{"a日b", 1, 1},
		{"a日b", 2, 1},
		{"a日b", 3, 1},
		{"a日b", 4, 4},
		{"日", 1, 3}, // progress: the first character whole
		{"\xff\xfe", 1, 1},
		{"a\xe6\x97", 2, 2}, // a truncated sequence is invalid bytes, each its own character
		{"😀x", 3, 4},
	}
	for _, tt := range tests {
		if got := CutBack([]byte(tt.in), tt.n); got != tt.want {
			t.Errorf("CutBack(%q, %d) = %d, want %d", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestSkipForward(t *testing.T) {
	tests := []struct {
		in   string
		i    int
		want int
	}{
		{"a日b", 0, 0}, {"a日b", 1, 1}, {"a日b", 2, 4}, {"a日b", 3, 4}, {"a日b", 4, 4},
		{"\xe6\x97x", 1, 1}, {"x\x80\x80", 2, 2},
	}
	for _, tt := range tests {
		if got := SkipForward([]byte(tt.in), tt.i); got != tt.want {
			t.Errorf("SkipForward(%q, %d) = %d, want %d", tt.in, tt.i, got, tt.want)
		}
	}
}

func TestClipLine(t *testing.T) {
	tests := []struct {
		in      string
		max     int
		want    string
		clipped bool
	}{
		{"abcdef\n", 3, "abc\n", true},
		{"abc\n", 3, "abc\n", false},
		{"abc\r\n", 3, "abc\r\n", false},
		{"abcd\r\n", 3, "abc\r\n", true},
		{"日本語です", 2, "日本", true},
		{"\xff\xff\xff\xff", 2, "\xff\xff", true},
		{"abcdef", 0, "abcdef", false},
	}
	for _, tt := range tests {
		got, clipped := ClipLine([]byte(tt.in), tt.max)
		if string(got) != tt.want || clipped != tt.clipped {
			t.Errorf("ClipLine(%q, %d) = %q, %v; want %q, %v", tt.in, tt.max, got, clipped, tt.want, tt.clipped)
		}
	}
}

func TestCleanLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\n", "plain\n"},
		{"crlf\r\n", "crlf\r\n"},
		{"10%\r50%\r100%\n", "100%\n"},
		{"done\r\n", "done\r\n"},
		{"left\r", "left"},
		{"\x1b[1;32mgreen\x1b[0m text\n", "green text\n"},
		{"\x1b[2K\r\x1b[32m⠋\x1b[0m Downloading 3/10\r\x1b[2K\r\x1b[32m⠙\x1b[0m Downloading 10/10\n", "⠙ Downloading 10/10\n"},
		{"tab\tkept\n", "tab\tkept\n"},
	}
	for _, tt := range tests {
		if got := string(CleanLine([]byte(tt.in))); got != tt.want {
			t.Errorf("CleanLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsBinary(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want bool
	}{
		{"empty", nil, false},
		{"text", []byte("hello\nworld\n"), false},
		{"utf-8", []byte("日本語 héllo\n"), false},
		{"nul", []byte("abc\x00def"), true},
		{"ansi", []byte("\x1b[31mred\x1b[0m\n"), false},
		{"latin-1 accents in text", []byte("caf\xe9 au lait, a long line of text\n"), false},
		{"short latin-1", []byte("caf\xe9\n"), false},
		{"control bytes", bytes.Repeat([]byte{1, 2, 3, 'a'}, 50), true},
		{"random high bytes", bytes.Repeat([]byte{0xff, 0xfe, 0x81}, 100), true},
		{"cut sequence at the end", append(bytes.Repeat([]byte("x"), sniffLen-1), 0xe6, 0x97), false},
	}
	for _, tt := range tests {
		if got := IsBinary(tt.in); got != tt.want {
			t.Errorf("%s: IsBinary = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// FuzzLinesWalk pages through arbitrary input as read does, window after
// window, and checks the rules: no window splits a UTF-8 character or a
// line (but a partial one), limits hold, and the windows give the input back.
func FuzzLinesWalk(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), 4, 3)
	f.Add([]byte("日本語\n\xff\xfe\nxyz"), 5, 1)
	f.Add([]byte(strings.Repeat("long line ", 50)+"\nshort\n"), 16, 2)
	f.Add([]byte{}, 1, 1)
	f.Fuzz(func(t *testing.T, in []byte, maxBytes, limit int) {
		maxBytes = 1 + abs(maxBytes)%64
		limit = abs(limit) % 8
		var got []byte
		for pos := 0; pos < len(in); {
			end := min(len(in), pos+maxBytes+utf8.UTFMax)
			w := Lines(in[pos:end], end == len(in), LineOptions{Limit: limit, MaxBytes: maxBytes})
			if w.Bytes <= 0 || w.Bytes > maxBytes && !(w.Partial && w.Bytes <= utf8.UTFMax) {
				t.Fatalf("at %d: window of %d bytes (max %d): %+v", pos, w.Bytes, maxBytes, w)
			}
			if limit > 0 && w.Lines > limit {
				t.Fatalf("at %d: %d lines over limit %d", pos, w.Lines, limit)
			}
			chunk := in[pos : pos+w.Bytes]
			if w.Content != Valid(chunk) {
				t.Fatalf("at %d: content %q is not the bytes %q", pos, w.Content, chunk)
			}
			if !w.Partial && pos+w.Bytes < len(in) && chunk[len(chunk)-1] != '\n' {
				t.Fatalf("at %d: window ends inside a line: %q", pos, chunk)
			}
			if w.Partial && CutBack(in[pos:], w.Bytes) != w.Bytes {
				t.Fatalf("at %d: partial window splits a character: %q", pos, chunk)
			}
			got = append(got, chunk...)
			pos += w.Bytes
			if w.Partial {
				// read would go on with readBytes: finish the line by slices.
				for pos < len(in) && in[pos-1] != '\n' {
					lineEnd := bytes.IndexByte(in[pos:], '\n')
					rest := in[pos:]
					if lineEnd >= 0 {
						rest = in[pos : pos+lineEnd+1]
					}
					n := Slice(rest[:min(len(rest), maxBytes+utf8.UTFMax)], maxBytes)
					if n == 0 {
						t.Fatalf("at %d: Slice made no progress", pos)
					}
					got = append(got, in[pos:pos+n]...)
					pos += n
				}
			}
		}
		if !bytes.Equal(got, in) {
			t.Fatalf("walk gave %q, want %q", got, in)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == -n {
			return 0
		}
		return -n
	}
	return n
}

package testtext

import "testing"

func TestCountLinesAndLines(t *testing.T) {
	tests := []struct {
		in    string
		lines int64
		two   string // Lines(in, 2, 3)
	}{
		{"", 0, ""},
		{"\n", 1, ""},
		{"a", 1, ""},
		{"a\nb", 2, "b"},
		{"a\nb\n", 2, "b\n"},
		{"a\r\nb\r\nc\r\nd", 4, "b\r\nc\r\n"},
	}
	for _, tt := range tests {
		if got := CountLines([]byte(tt.in)); got != tt.lines {
			t.Errorf("CountLines(%q) = %d, want %d", tt.in, got, tt.lines)
		}
		if got := string(Lines([]byte(tt.in), 2, 3)); got != tt.two {
			t.Errorf("Lines(%q, 2, 3) = %q, want %q", tt.in, got, tt.two)
		}
	}
}

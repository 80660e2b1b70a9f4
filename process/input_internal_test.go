package process

import "testing"

// TestTyped: on a terminal "\n" is typed as Enter ("\r"), "\r\n" as one
// Enter; the count written maps back to the bytes of what was asked.
func TestTyped(t *testing.T) {
	cases := []struct {
		in, out string
	}{
		{"", ""},
		{"abc", "abc"},
		{"bob\n", "bob\r"},
		{"a\r\nb\n", "a\rb\r"},
		{"\u0003", "\u0003"},
		{"\n\n", "\r\r"},
		{"x\r", "x\r"},
	}
	for _, c := range cases {
		if got := typed(c.in); got != c.out {
			t.Errorf("typed(%q) = %q, want %q", c.in, got, c.out)
		}
		if n := typedLen(c.in, len(c.out)); n != len(c.in) {
			t.Errorf("typedLen(%q, %d) = %d, want %d", c.in, len(c.out), n, len(c.in))
		}
	}
	if n := typedLen("a\r\nb\n", 2); n != 3 {
		t.Errorf("typedLen of a partial write: %d, want 3", n)
	}
}

// FuzzTyped: typed never grows its input, and typedLen maps every prefix
// of the output into the input, monotonically.
func FuzzTyped(f *testing.F) {
	f.Add("a\r\nb\n\r\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		out := typed(s)
		if len(out) > len(s) {
			t.Fatalf("typed(%q) = %q grew", s, out)
		}
		prev := 0
		for n := 0; n <= len(out); n++ {
			k := typedLen(s, n)
			if k < prev || k > len(s) {
				t.Fatalf("typedLen(%q, %d) = %d after %d", s, n, k, prev)
			}
			prev = k
		}
		if prev != len(s) {
			t.Fatalf("typedLen of all of typed(%q) = %d, want %d", s, prev, len(s))
		}
	})
}

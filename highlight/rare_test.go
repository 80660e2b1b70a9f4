package highlight

import (
	"fmt"
	"strings"
	"testing"
)

// TestRareAmongMany: words of failure not shaped as a message, a few times
// among tens of thousands of repeated lines, are highlights: up to
// rareKind of them each shown, whether they come together or apart
// (five "permission denied" lines in 40,000 were shown as none).
func TestRareAmongMany(t *testing.T) {
	tests := []struct {
		name string
		out  func() string
		want []string // lines that must be in a group
	}{
		{"apart", func() string {
			var b strings.Builder
			for j := 1; j <= 5; j++ {
				for i := 1; i <= 8000; i++ {
					fmt.Fprintf(&b, "fine %d\n", i)
				}
				fmt.Fprintf(&b, "permission denied opening /var/x%d\n", j)
			}
			return b.String()
		}, []string{"permission denied opening /var/x1", "permission denied opening /var/x2", "permission denied opening /var/x3"}},
		{"together", func() string {
			var b strings.Builder
			for i := 1; i <= 20000; i++ {
				fmt.Fprintf(&b, "fine %d\n", i)
			}
			for j := 1; j <= 5; j++ {
				fmt.Fprintf(&b, "no such file /p/%d\n", j)
			}
			for i := 1; i <= 20000; i++ {
				fmt.Fprintf(&b, "fine %d\n", i)
			}
			return b.String()
		}, []string{"no such file /p/1"}},
	}
	for _, tt := range tests {
		r := Scan([]byte(tt.out()), Options{})
		var shown strings.Builder
		for _, g := range r.Groups {
			shown.WriteString(strings.Join(g.Lines, ""))
		}
		for _, w := range tt.want {
			if !strings.Contains(shown.String(), w+"\n") {
				t.Errorf("%s: %q not in the groups: %q", tt.name, w, shown.String())
			}
		}
	}
}

// TestTracebackHitIsException: a Python traceback's group is hit at its
// exception line, which a preview shows first when the budget keeps a line
// or two of the group (frames of code lines thousands of characters long
// left groups of the "Traceback" and "File" lines alone).
func TestTracebackHitIsException(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		b.WriteString("Traceback (most recent call last):\n")
		b.WriteString("  File \"app.py\", line 10, in <module>\n")
		b.WriteString("    x = compute(" + strings.Repeat("a, ", 1000) + ")\n")
		fmt.Fprintf(&b, "ValueError: bad value %d\n", i)
		for j := range 30 {
			fmt.Fprintf(&b, "ok step %d\n", j)
		}
	}
	r := Scan([]byte(b.String()), Options{})
	if len(r.Groups) == 0 {
		t.Fatal("no groups")
	}
	for _, g := range r.Groups {
		if g.Rule != "py-traceback" {
			continue
		}
		if i := g.Hit - g.FromLine; i < 0 || int(i) >= len(g.Lines) || !strings.HasPrefix(g.Lines[i], "ValueError: ") {
			t.Errorf("group %d-%d hit at %d: %q", g.FromLine, g.ToLine, g.Hit, g.Lines)
		}
	}
}

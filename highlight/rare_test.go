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

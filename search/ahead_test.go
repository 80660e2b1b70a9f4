package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestAheadAgrees: a grep whose workers stop past where the limit will be
// reached (ahead) gives the reply of one that searches every file, over
// limits, byte budgets and context, for a walk and for a listing.
func TestAheadAgrees(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 9))
	words := []string{"alpha", "beta", "needle", "gamma", "Needle", "x"}
	// 120 files in the quick run (400 with TOOLD_LONG=1): every limit but
	// the largest still stops each pattern's grep before its last file.
	for i := range testenv.Size(120, 400) {
		var b strings.Builder
		for range r.IntN(12) {
			for w := range 1 + r.IntN(5) {
				if w > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteByte('\n')
		}
		if i%61 == 3 {
			b.WriteString("bin\x00needle\n")
		}
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%7), fmt.Sprintf("f%03d.txt", i))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(b.String()), 0o644))
	}
	l, err := Files(context.Background(), dir, GrepOptions{})
	must(t, err)
	pick := make([]int32, len(l.Files))
	for i := range pick {
		pick[i] = int32(i)
	}
	grep := func(m *Matcher, opt GrepOptions, listing bool) *GrepResult {
		var res *GrepResult
		var err error
		if listing {
			res, err = GrepListing(context.Background(), m, dir, l, pick, nil, opt)
		} else {
			res, err = Grep(context.Background(), m, dir, opt)
		}
		must(t, err)
		return res
	}
	for _, q := range []Query{{Pattern: "needle"}, {Pattern: "needle", IgnoreCase: true}, {Pattern: `beta \w+`}} {
		m, err := Compile(q)
		must(t, err)
		for _, opt := range []GrepOptions{{Limit: 1}, {Limit: 5}, {Limit: 37, Context: 2}, {Limit: 100}, {MaxBytes: 300},
			{Limit: 50, MaxBytes: 2000}, {Limit: 10000}} {
			for _, listing := range []bool{false, true} {
				noAhead = true
				want := grep(m, opt, listing)
				noAhead = false
				// Once in the quick run (three with TOOLD_LONG=1: the
				// workers stop at other files each time).
				for range testenv.Size(1, 3) {
					if got := grep(m, opt, listing); !reflect.DeepEqual(got, want) {
						t.Fatalf("%+v %+v listing %v: ahead differs:\ngot  %+v\nwant %+v", q, opt, listing, got, want)
					}
				}
			}
		}
	}
}

package seen

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestSeenBound: the record of what sessions read stays within its bytes,
// the oldest files going first.
func TestSeenBound(t *testing.T) {
	st := NewStore(64 << 10)
	hs := make([]uint64, 1000) // 8 KB a file
	for i := 0; i < 100; i++ {
		st.Compare(Key{"s", fmt.Sprint(i)}, 1, hs, 1000)
		if st.bytes > st.max {
			t.Fatalf("%d bytes kept, max %d", st.bytes, st.max)
		}
	}
	if _, ok := st.lru.Peek(Key{"s", "0"}); ok {
		t.Error("the oldest file is still kept")
	}
	if r := st.Compare(Key{"s", "99"}, 1, hs, 1000); !r.Unchanged {
		t.Error("the newest file was forgotten")
	}
}

func TestSeenPut(t *testing.T) {
	f := &file{}
	f.put(10, []uint64{1, 2, 3})
	f.put(1, []uint64{9, 9})
	f.put(3, []uint64{7, 7, 7, 7, 7, 7, 7, 7}) // 3-10, joins both
	f.put(12, []uint64{5})
	want := []span{{start: 1, hashes: []uint64{9, 9, 7, 7, 7, 7, 7, 7, 7, 7, 2, 5}}}
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
			st := NewStore(max)
			for i := range 400 {
				key := Key{"s", fmt.Sprint(i % tt.files)}
				st.Record(key, tt.start(i), slices.Clone(window), 20_000_000)
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
			last := Key{"s", fmt.Sprint(399 % tt.files)}
			if r := st.Compare(last, tt.start(399), slices.Clone(window), 20_000_000); !r.Unchanged {
				t.Errorf("the last window read was forgotten: %+v", r)
			}
		})
	}
}

// TestSeenPutSpans: put keeps the spans sorted, disjoint and each line's
// newest hash, whatever the order of the windows (checked against a map).
func TestSeenPutSpans(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	f := &file{}
	want := map[int64]uint64{}
	for i := range 3000 {
		start, n := 1+rnd.Int64N(20000), 1+rnd.IntN(300)
		if i%7 == 0 {
			n = 1 + rnd.IntN(6000) // past mergeMax
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

// TestSeenWork: comparing or recording a window waits for its share of
// the daemon's budget, at most the whole of it, and gives up with its
// context (64 requests of 256K-line windows held 400 MiB at once).
func TestSeenWork(t *testing.T) {
	st := NewStore(1 << 20)
	release, err := st.Work(context.Background(), 1<<30) // more than the budget: all of it
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := st.Work(ctx, 20000); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("with the budget taken: %v", err)
	}
	// A window of read's default 2000 lines takes none of it.
	if r, err := st.Work(context.Background(), 2000); err != nil {
		t.Errorf("a small window with the budget taken: %v", err)
	} else {
		r()
	}
	release()
	r2, err := st.Work(context.Background(), 20000)
	if err != nil {
		t.Fatal(err)
	}
	r2()
}

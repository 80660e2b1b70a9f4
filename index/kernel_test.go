package index

import (
	"context"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/search"
)

// kernelQueries are bench/indexbench's queries.
var kernelQueries = []search.Query{
	{Pattern: "schedule_timeout", Literal: true}, {Pattern: "kmalloc_array", Literal: true},
	{Pattern: "copy_from_user", Literal: true}, {Pattern: "spin_lock_irqsave", Literal: true},
	{Pattern: "of_property_read_u32", Literal: true}, {Pattern: "pci_register_driver", Literal: true},
	{Pattern: "struct task_struct", Literal: true}, {Pattern: "EXPORT_SYMBOL_GPL(sched", Literal: true},
	{Pattern: "sk_buff_head", Literal: true}, {Pattern: "blk_mq_alloc_tag_set", Literal: true},
	{Pattern: "Out of memory", Literal: true}, {Pattern: "failed to allocate", Literal: true},
	{Pattern: "unable to register", Literal: true}, {Pattern: "Invalid argument", Literal: true},
	{Pattern: `static int \w+_probe\(`}, {Pattern: `(alloc|free)_pages_exact`}, {Pattern: `#define\s+PAGE_SHIFT`},
	{Pattern: `^MODULE_LICENSE\("GPL`}, {Pattern: `dev_(err|warn)\(&pdev`},
	{Pattern: "out of memory", Literal: true, IgnoreCase: true}, {Pattern: "permission denied", Literal: true, IgnoreCase: true},
	{Pattern: "todo: fix", Literal: true, IgnoreCase: true}, {Pattern: `mutex_(un)?lock_nested`, IgnoreCase: true},
}

// TestKernelRepeat times repeat greps through the index of the tree
// $TOOLD_KERNEL (its index kept in $TOOLD_KERNEL_CACHE), each with the
// CPU it took and its candidates; TOOLD_KERNEL_READ=1 adds the bytes
// they read (whole files, parts). A manual bench without the JSON-RPC
// round trip (bench/index.sh has it):
//
//	TOOLD_KERNEL=/work/kernel/linux-source-6.1 TOOLD_KERNEL_CACHE=/tmp/c go test -run TestKernelRepeat -v ./index
func TestKernelRepeat(t *testing.T) {
	tree := os.Getenv("TOOLD_KERNEL")
	if tree == "" {
		t.Skip("TOOLD_KERNEL not set")
	}
	m, err := New(Options{Dir: os.Getenv("TOOLD_KERNEL_CACHE"), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	t0 := time.Now()
	m.Candidates(tree, nil, tree)
	if !testenv.Until(5*time.Minute, func() bool { return m.Stats()[0].State == StateReady }) {
		t.Fatalf("never ready: %+v", m.Stats())
	}
	t.Logf("ready after %v (cpu %v): %+v", time.Since(t0), cpuTime(), m.Stats())
	// At the caps bench/indexbench sends, then at the protocol's default
	// limits (what an agent sends).
	for _, opt := range []search.GrepOptions{
		{Limit: 2000, MaxBytes: 262144, MaxFileSize: 64 << 20, IgnoreFrom: tree},
		{Limit: 100, MaxBytes: 51200, MaxLineChars: 500, MaxFileSize: 64 << 20, IgnoreFrom: tree},
	} {
		t.Logf("limit %d, maxBytes %d", opt.Limit, opt.MaxBytes)
		kernelRepeat(t, m, tree, opt)
	}
}

func kernelRepeat(t *testing.T, m *Manager, tree string, opt search.GrepOptions) {
	var all []time.Duration
	for _, q := range kernelQueries {
		mt, _ := search.Compile(q)
		var ds []time.Duration
		var res *search.GrepResult
		var kept int
		var plans, cpus []time.Duration
		for range 5 {
			t1, c1 := time.Now(), cpuTime()
			p := m.Plan(tree, QueryFor(q.Pattern, q.Literal, q.IgnoreCase), tree, false)
			if p.Listing == nil {
				t.Fatalf("%v: no listing", q)
			}
			plans = append(plans, time.Since(t1))
			kept = len(p.Pick)
			var err error
			opt.Text = p.Text
			res, err = search.GrepListing(context.Background(), mt, tree, p.Listing, p.Pick, p.Parts, opt)
			if err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(t1))
			cpus = append(cpus, cpuTime()-c1)
		}
		if os.Getenv("TOOLD_KERNEL_READ") != "" {
			p := m.Plan(tree, QueryFor(q.Pattern, q.Literal, q.IgnoreCase), tree, false)
			var total, parted, big int64
			inParts := map[int32]*search.Parts{}
			for i := range p.Parts {
				inParts[p.Parts[i].File] = &p.Parts[i].Parts
			}
			for _, i := range p.Pick {
				fi, err := os.Stat(tree + "/" + p.Listing.Files[i].Rel)
				if err != nil {
					continue
				}
				if pp := inParts[i]; pp != nil {
					for _, r := range pp.Ranges {
						parted += r.End - r.Off
					}
					continue
				}
				total += fi.Size()
				if fi.Size() > 1<<20 {
					big += fi.Size()
				}
			}
			t.Logf("  %d files: whole %d MB (%d MB over 1 MB), %d in parts: %d MB", len(p.Pick), total>>20, big>>20, len(p.Parts), parted>>20)
		}
		firstPlan := plans[0] // not cached yet at the caps
		slices.Sort(ds)
		slices.Sort(plans)
		slices.Sort(cpus)
		all = append(all, ds[2])
		t.Logf("%-30q plan first %5.2f ms median %5.2f ms %7.1f ms cpu %7.1f ms  candidates %6d  files %5d matches %5d", q.Pattern, float64(firstPlan.Microseconds())/1000, float64(plans[2].Microseconds())/1000, float64(ds[2].Microseconds())/1000, float64(cpus[2].Microseconds())/1000, kept, len(res.Files), res.TotalMatches)
	}
	slices.Sort(all)
	t.Logf("p50 %v p90 %v", all[len(all)/2], all[len(all)*9/10])
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

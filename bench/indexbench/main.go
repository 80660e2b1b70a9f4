// Command indexbench measures the search index on a real tree beside
// ripgrep, in one run: the first grep (a scan, which starts the build),
// the build's time and bytes, repeat greps of agent-like queries (each
// beside rg, interleaved) twice: at the caps (every match, as rg prints
// them) and at the protocol's default limits (what an agent sends), the
// daemon's RssAnon, and a restart. It drives
// `toold serve --stdio` as a client (newline-delimited JSON) and imports
// none of the project's packages. bench/index.sh runs it on the kernel.
//
//	indexbench -toold /tmp/toold -tree /work/kernel/linux-source-6.1 -runs 5
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// query is one agent-like grep: toold's params and rg's arguments.
type query struct {
	label  string
	params map[string]any
	rg     []string
}

func q(label, pattern string, lit, fold bool) query {
	p := map[string]any{"pattern": pattern}
	args := []string{"-n"}
	if lit {
		p["literal"] = true
		args = append(args, "-F")
	}
	if fold {
		p["ignoreCase"] = true
		args = append(args, "-i")
	}
	return query{label, p, append(args, "-e", pattern)}
}

var queries = []query{
	q("ident schedule_timeout", "schedule_timeout", true, false),
	q("ident kmalloc_array", "kmalloc_array", true, false),
	q("ident copy_from_user", "copy_from_user", true, false),
	q("ident spin_lock_irqsave", "spin_lock_irqsave", true, false),
	q("ident of_property_read_u32", "of_property_read_u32", true, false),
	q("ident pci_register_driver", "pci_register_driver", true, false),
	q("ident struct task_struct", "struct task_struct", true, false),
	q("ident EXPORT_SYMBOL_GPL(sched", "EXPORT_SYMBOL_GPL(sched", true, false),
	q("ident sk_buff_head", "sk_buff_head", true, false),
	q("ident blk_mq_alloc_tag_set", "blk_mq_alloc_tag_set", true, false),
	q("error Out of memory", "Out of memory", true, false),
	q("error failed to allocate", "failed to allocate", true, false),
	q("error unable to register", "unable to register", true, false),
	q("error Invalid argument", "Invalid argument", true, false),
	q(`regexp static int \w+_probe\(`, `static int \w+_probe\(`, false, false),
	q(`regexp (alloc|free)_pages_exact`, `(alloc|free)_pages_exact`, false, false),
	q(`regexp #define\s+PAGE_SHIFT`, `#define\s+PAGE_SHIFT`, false, false),
	q(`regexp ^MODULE_LICENSE\("GPL`, `^MODULE_LICENSE\("GPL`, false, false),
	q(`regexp dev_(err|warn)\(&pdev`, `dev_(err|warn)\(&pdev`, false, false),
	q("-i out of memory", "out of memory", true, true),
	q("-i permission denied", "permission denied", true, true),
	q("-i todo: fix", "todo: fix", true, true),
	q("-i regexp mutex_(un)?lock_nested", `mutex_(un)?lock_nested`, false, true),
}

type daemon struct {
	cmd *exec.Cmd
	in  *json.Encoder
	out *bufio.Scanner
	id  int
}

// capped is q's params at the caps: every match up to 2000, as rg prints
// them all.
func capped(q query) map[string]any {
	return with(q.params, map[string]any{"limit": 2000, "maxBytes": 262144})
}

func start(toold, cache string) (*daemon, error) {
	cmd := exec.Command(toold, "serve", "--stdio", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return &daemon{cmd: cmd, in: json.NewEncoder(in), out: sc}, nil
}

func (d *daemon) call(method string, params any, result any) error {
	d.id++
	if err := d.in.Encode(map[string]any{"jsonrpc": "2.0", "id": d.id, "method": method, "params": params}); err != nil {
		return err
	}
	for d.out.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(d.out.Bytes(), &m); err != nil || m.ID == nil || *m.ID != d.id {
			continue
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error)
		}
		return json.Unmarshal(m.Result, result)
	}
	return fmt.Errorf("%s: daemon gone: %v", method, d.out.Err())
}

func (d *daemon) stop() { d.cmd.Process.Kill(); d.cmd.Wait() }

// rssAnon is the daemon's RssAnon in KiB.
func (d *daemon) rssAnon() int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "RssAnon:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}

type indexStat struct {
	Root, State, Reason string
	Files               int
	Bytes, BuiltMs      int64
	Hits, Scans         int64
}

func (d *daemon) index() indexStat {
	var st struct{ Index []indexStat }
	d.call("stats", nil, &st)
	if len(st.Index) == 0 {
		return indexStat{}
	}
	return st.Index[0]
}

type grepRes struct {
	TotalMatches int `json:"totalMatches"`
}

// with returns a copy of p with the keys of more set.
func with(p, more map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range []map[string]any{p, more} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func timeGrep(d *daemon, tree string, params map[string]any) (time.Duration, int, error) {
	p := with(params, map[string]any{"path": tree})
	var r grepRes
	t0 := time.Now()
	err := d.call("grep", p, &r)
	return time.Since(t0), r.TotalMatches, err
}

func timeRg(tree string, qq query) (time.Duration, int) {
	t0 := time.Now()
	out, _ := exec.Command("rg", append(qq.rg, tree)...).Output()
	return time.Since(t0), strings.Count(string(out), "\n")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func pct(ds []float64, p float64) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1)+0.5)]
}

func main() {
	toold := flag.String("toold", "toold", "the toold binary")
	tree := flag.String("tree", "", "the tree to search")
	cache := flag.String("cache", "", "XDG_CACHE_HOME for the daemon (emptied first)")
	runs := flag.Int("runs", 5, "runs per query (median)")
	flag.Parse()
	if err := run(*toold, *tree, *cache, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "indexbench:", err)
		os.Exit(1)
	}
}

func run(toold, tree, cache string, runs int) error {
	os.RemoveAll(cache + "/toold")
	load := func() string {
		b, _ := os.ReadFile("/proc/loadavg")
		return strings.Join(strings.Fields(string(b))[:3], " ")
	}
	fmt.Printf("tree %s; runs %d per query (median), toold and rg interleaved; load before %s\n\n", tree, runs, load())
	d, err := start(toold, cache)
	if err != nil {
		return err
	}
	defer func() { d.stop() }()
	// The first grep: a scan, beside rg (rg first: the page cache is warm
	// for both; bench/index.sh warms it).
	first := queries[0]
	rgFirst, _ := timeRg(tree, first)
	tFirst, n, err := timeGrep(d, tree, capped(first))
	if err != nil {
		return err
	}
	fmt.Printf("first grep (scan, starts the build): toold %.3f s, rg %.3f s (%.2fx), %d matches\n", tFirst.Seconds(), rgFirst.Seconds(), tFirst.Seconds()/rgFirst.Seconds(), n)
	peak := 0
	t0 := time.Now()
	var st indexStat
	for {
		st = d.index()
		peak = max(peak, d.rssAnon())
		if st.State == "ready" || st.State == "scanning" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if st.State != "ready" {
		return fmt.Errorf("index %s: %s", st.State, st.Reason)
	}
	built := st.BuiltMs
	treeBytes := duBytes(tree)
	fmt.Printf("index build: %.1f s (builtMs %d; %.0fx the rg scan), %d files, %.1f MiB = %.1f%% of the tree's %.0f MiB; peak RssAnon while building %d MiB\n\n",
		time.Since(t0).Seconds(), st.BuiltMs, float64(st.BuiltMs)/1000/rgFirst.Seconds(), st.Files, float64(st.Bytes)/(1<<20),
		100*float64(st.Bytes)/float64(treeBytes), float64(treeBytes)/(1<<20), peak/1024)
	if err := table(d, tree, runs, "at the caps (limit 2000, maxBytes 262144)", capped); err != nil {
		return err
	}
	fmt.Println()
	deflt := func(q query) map[string]any { return q.params }
	if err := table(d, tree, runs, "at the protocol's default limits (no limit or maxBytes sent: what an agent sends)", deflt); err != nil {
		return err
	}
	st = d.index()
	fmt.Printf("\nindex hits %d, scans %d\n", st.Hits, st.Scans)
	fmt.Printf("daemon RssAnon after the queries: %d MiB\n", d.rssAnon()/1024)
	// A restart: the index is taken from disk once sizes and mtimes match.
	d.stop()
	if d, err = start(toold, cache); err != nil {
		return err
	}
	t0 = time.Now()
	tg, _, err := timeGrep(d, tree, capped(first))
	if err != nil {
		return err
	}
	for st = d.index(); st.State == "building"; st = d.index() {
		time.Sleep(20 * time.Millisecond)
	}
	ready := time.Since(t0)
	fmt.Printf("restart: index %s %.2f s after the first grep was sent (that grep answered in %.3f s; the build took %.1f s: %.0f%%)\n",
		st.State, ready.Seconds(), tg.Seconds(), float64(built)/1000, 100*ready.Seconds()/(float64(built)/1000))
	fmt.Printf("load after %s\n", load())
	return nil
}

// table times each query with the params params gives, beside rg
// (interleaved), and prints a table with its p50 and p90: of the medians,
// and of the first runs.
func table(d *daemon, tree string, runs int, title string, params func(query) map[string]any) error {
	fmt.Printf("### Repeat greps %s\n\n", title)
	fmt.Println("| query | toold first run ms | toold median ms | rg median ms | toold/rg (medians) | matches toold / rg |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	var ts, firsts, ratios, firstRatios []float64
	for _, qq := range queries {
		var td, rd []time.Duration
		var tn, rn int
		for range runs {
			t, n, err := timeGrep(d, tree, params(qq))
			if err != nil {
				return err
			}
			r, m := timeRg(tree, qq)
			td, rd, tn, rn = append(td, t), append(rd, r), n, m
		}
		tm, rm := median(td), median(rd)
		ts = append(ts, float64(tm.Microseconds())/1000)
		firsts = append(firsts, float64(td[0].Microseconds())/1000)
		ratios = append(ratios, tm.Seconds()/rm.Seconds())
		firstRatios = append(firstRatios, td[0].Seconds()/rm.Seconds())
		fmt.Printf("| `%s` | %.1f | %.1f | %.0f | %.4f | %d / %d |\n", qq.label, float64(td[0].Microseconds())/1000, float64(tm.Microseconds())/1000, float64(rm.Milliseconds()), tm.Seconds()/rm.Seconds(), tn, rn)
	}
	fmt.Printf("\n%d queries, medians: p50 %.1f ms, p90 %.1f ms; toold/rg p50 %.4f, p90 %.4f, max %.4f\n",
		len(queries), pct(ts, 0.5), pct(ts, 0.9), pct(ratios, 0.5), pct(ratios, 0.9), pct(ratios, 1))
	fmt.Printf("first runs: p50 %.1f ms, p90 %.1f ms; toold/rg (rg's median) p50 %.4f, p90 %.4f, max %.4f\n",
		pct(firsts, 0.5), pct(firsts, 0.9), pct(firstRatios, 0.5), pct(firstRatios, 0.9), pct(firstRatios, 1))
	return nil
}

func duBytes(tree string) int64 {
	out, err := exec.Command("du", "-sb", tree).Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.Fields(string(out))[0], 10, 64)
	return n
}

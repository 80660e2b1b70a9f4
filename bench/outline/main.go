// Command outline measures the outline's figures: the first read of a 1 GiB
// file beside `wc -l`, the outlines of a 1 GiB log, a 100 MB JSON array and
// a 50 MB Markdown book beside `ctags` and `wc -l` on the same files (time
// and the daemon's peak RSS), and the wire size of an unchanged re-read.
// Each toold run is a fresh daemon (stdio), so its index is cold; runs are
// interleaved with their baselines so that both see the same load.
//
//	go run ./bench/outline -toold ./toold -dir bench/data -runs 5
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	toold := flag.String("toold", "./toold", "the toold binary")
	dir := flag.String("dir", "bench/data", "where the files are generated once and kept")
	runs := flag.Int("runs", 5, "runs per measurement; the median is shown")
	logMB := flag.Int("log-mb", 1024, "size of the log")
	flag.Parse()
	os.MkdirAll(*dir, 0o755)
	files := []struct {
		name string
		mb   int
		gen  func(w *bufio.Writer, size int64)
	}{
		{"lines-1024MB.txt", 1024, genLines},
		{fmt.Sprintf("service-%dMB.log", *logMB), *logMB, genLog},
		{"array-100MB.json", 100, genJSON},
		{"book-50MB.md", 50, genBook},
	}
	paths := map[string]string{}
	for _, f := range files {
		p := filepath.Join(*dir, f.name)
		paths[f.name] = p
		if st, err := os.Stat(p); err == nil && st.Size() >= int64(f.mb)<<20 {
			continue
		}
		fmt.Fprintf(os.Stderr, "generating %s\n", p)
		out, err := os.Create(p)
		check(err)
		w := bufio.NewWriterSize(out, 1<<20)
		f.gen(w, int64(f.mb)<<20)
		check(w.Flush())
		check(out.Close())
	}
	load := loadavg()
	fmt.Printf("## Outlines, re-reads and the first read\n\n")
	fmt.Printf("%s, %d CPUs shared with other work; medians of %d runs, each toold run a fresh daemon (cold index), interleaved with its baselines; load average %s before", goVersion(), ncpu(), *runs, load)
	fmt.Fprintln(os.Stderr)

	var rows []string
	lines := paths["lines-1024MB.txt"]
	warm(lines)
	first := measure(*runs, func() result { return tooldRead(*toold, map[string]any{"path": lines, "limit": 1}) },
		func() result { return timeCmd("wc", "-l", lines) })
	verdict := " ok |"
	if first.toold.Seconds() > 0.6*first.base[0].Seconds() {
		verdict = " **MISSED** |"
	}
	rows = append(rows, row("first `read` of a 1 GiB text file (10.7 M lines)", first, "`wc -l`", "≤ 0.6× wc -l")+verdict)

	for _, f := range []struct{ file, what string }{
		{fmt.Sprintf("service-%dMB.log", *logMB), "outline of a 1 GiB log, maxBytes 8192"},
		{"array-100MB.json", "outline of a 100 MB JSON array of objects"},
		{"book-50MB.md", "outline of a 50 MB Markdown book"},
	} {
		p := paths[f.file]
		warm(p)
		params := map[string]any{"path": p, "outline": true}
		if strings.HasSuffix(p, ".log") {
			params["maxBytes"] = 8192
		}
		m := measure(*runs, func() result { return tooldRead(*toold, params) },
			func() result { return timeCmd("wc", "-l", p) },
			once(func() result { return timeCmd("ctags", "--output-format=json", "--fields=+ne", "-f", "/dev/null", p) }))
		rows = append(rows, row(f.what, m, "`wc -l`", "peak RSS < 64 MiB")+
			fmt.Sprintf(" `ctags` %s (peak RSS %s) |", ms(m.base[1]), mib(m.baseRSS[1])))
		fmt.Fprintf(os.Stderr, "%s: %s\n", f.what, m.last.notice)
		rows = append(rows, fmt.Sprintf("|  … its answer | %d bytes of JSON, %d entries of %d; notice: %s | | | |", m.last.bytes, m.last.entries, m.last.total, mdEscape(m.last.notice)))
	}
	fmt.Printf(", %s after.\n\n", loadavg())
	fmt.Println("| measurement | toold | baseline | ratio | target / other baseline |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, r := range rows {
		fmt.Println(r)
	}
	fmt.Println()
	fmt.Println(ifChanged(*toold, *dir))
}

type result struct {
	d       time.Duration
	rss     int64 // KiB, peak
	bytes   int
	entries int
	total   int
	notice  string
}

type measured struct {
	toold, rss time.Duration
	tooldRSS   int64
	base       []time.Duration
	baseRSS    []int64
	last       result
}

// measure runs toold and each baseline in turn, runs times, and keeps the
// medians (RSS: the worst).
func measure(runs int, toold func() result, bases ...func() result) measured {
	var m measured
	var ts []time.Duration
	bs := make([][]time.Duration, len(bases))
	m.baseRSS = make([]int64, len(bases))
	for i := 0; i < runs; i++ {
		r := toold()
		ts = append(ts, r.d)
		m.tooldRSS = max(m.tooldRSS, r.rss)
		m.last = r
		for j, b := range bases {
			br := b()
			bs[j] = append(bs[j], br.d)
			m.baseRSS[j] = max(m.baseRSS[j], br.rss)
		}
	}
	m.toold = median(ts)
	for _, b := range bs {
		m.base = append(m.base, median(b))
	}
	return m
}

// once runs f the first time only, and gives its result after: ctags takes
// minutes on some of these files.
func once(f func() result) func() result {
	var r *result
	return func() result {
		if r == nil {
			v := f()
			r = &v
		}
		return *r
	}
}

func row(what string, m measured, base, target string) string {
	ratio := m.toold.Seconds() / m.base[0].Seconds()
	return fmt.Sprintf("| %s | %s, peak RSS %s | %s %s | %.2f× | %s;", what, ms(m.toold), mib(m.tooldRSS), base, ms(m.base[0]), ratio, target)
}

// tooldRead starts a daemon, sends one read and returns its time (request
// written to reply read) and the daemon's peak RSS.
func tooldRead(bin string, params map[string]any) result {
	cmd := exec.Command(bin)
	in, err := cmd.StdinPipe()
	check(err)
	outp, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	out := bufio.NewReaderSize(outp, 1<<20)
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{}})
	fmt.Fprintf(in, "%s\n", req)
	_, err = out.ReadBytes('\n')
	check(err)
	req, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "read", "params": params})
	start := time.Now()
	fmt.Fprintf(in, "%s\n", req)
	line, err := out.ReadBytes('\n')
	d := time.Since(start)
	check(err)
	rss := peakRSS(cmd.Process.Pid)
	in.Close()
	io.Copy(io.Discard, out)
	cmd.Wait()
	var reply struct {
		Result struct {
			Notice  string          `json:"notice"`
			Outline json.RawMessage `json:"outline"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	check(json.Unmarshal(line, &reply))
	if reply.Error != nil {
		check(fmt.Errorf("read: %s", reply.Error))
	}
	var o struct {
		Entries      []json.RawMessage `json:"entries"`
		TotalEntries int               `json:"totalEntries"`
	}
	json.Unmarshal(reply.Result.Outline, &o)
	return result{d: d, rss: rss, bytes: len(reply.Result.Outline), entries: len(o.Entries), total: o.TotalEntries, notice: reply.Result.Notice}
}

// baselineTimeout bounds a baseline's run: ctags on a large Markdown file
// ran for over 10 minutes.
const baselineTimeout = 60 * time.Second

// timeCmd runs a command and returns its wall time and peak RSS; one killed
// at baselineTimeout counts as that long.
func timeCmd(name string, args ...string) result {
	ctx, cancel := context.WithTimeout(context.Background(), baselineTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout = io.Discard
	start := time.Now()
	if err := cmd.Run(); err != nil && ctx.Err() == nil {
		check(err)
	}
	d := time.Since(start)
	var rss int64
	if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = u.Maxrss // KiB on Linux
	}
	return result{d: d, rss: rss}
}

func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	check(err)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			n, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return n
		}
	}
	return 0
}

// ifChanged measures an unchanged re-read of a 2000-line window on the wire,
// and the changed ranges after 3 edits and after 10 lines inserted at the
// top of a 5000-line file.
func ifChanged(bin, dir string) string {
	path := filepath.Join(dir, "ifchanged-5000.txt")
	var lines []string
	for i := 0; i < 5000; i++ {
		lines = append(lines, fmt.Sprintf("func line%d() { return %d } // a line of code of some length\n", i, i*7))
	}
	write := func() { os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644) }
	write()
	cmd := exec.Command(bin)
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	check(cmd.Start())
	out := bufio.NewReaderSize(outp, 1<<20)
	id := 0
	call := func(params map[string]any) ([]byte, time.Duration) {
		id++
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "read", "params": params})
		start := time.Now()
		fmt.Fprintf(in, "%s\n", req)
		line, err := out.ReadBytes('\n')
		check(err)
		return line, time.Since(start)
	}
	p := map[string]any{"path": path, "ifChanged": true, "maxBytes": 262144}
	first, td := call(p)
	var times []time.Duration
	var again []byte
	for i := 0; i < 50; i++ {
		var d time.Duration
		again, d = call(p)
		times = append(times, d)
	}
	lines[99], lines[999], lines[1000] = "edited\n", "edited\n", "edited too\n"
	write()
	edited, _ := call(p)
	whole := map[string]any{"path": path, "ifChanged": true, "limit": 6000, "maxBytes": 262144}
	call(whole)
	var top []string
	for i := 0; i < 10; i++ {
		top = append(top, fmt.Sprintf("// inserted %d\n", i))
	}
	lines = append(top, lines...)
	write()
	inserted, _ := call(whole)
	in.Close()
	cmd.Wait()
	changed := func(b []byte) string {
		var r struct {
			Result struct {
				Changed json.RawMessage `json:"changed"`
				EndLine int             `json:"endLine"`
			} `json:"result"`
		}
		json.Unmarshal(b, &r)
		return fmt.Sprintf("%s (window lines 1-%d)", r.Result.Changed, r.Result.EndLine)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ifChanged on a 5000-line file (%s), one daemon over stdio:\n\n", filepath.Base(path))
	fmt.Fprintf(&b, "| case | answer |\n| --- | --- |\n")
	fmt.Fprintf(&b, "| first read, 2000 lines (maxBytes 262144) | %d bytes on the wire, %s |\n", len(first), ms(td))
	fmt.Fprintf(&b, "| re-read unchanged (median of 50) | %d bytes on the wire, %s: `%s` |\n", len(again), ms(median(times)), strings.TrimSpace(string(again)))
	fmt.Fprintf(&b, "| 3 lines edited (100, 1000, 1001) | changed %s |\n", changed(edited))
	fmt.Fprintf(&b, "| 10 lines inserted at the top, whole file re-read | changed %s |\n", changed(inserted))
	return b.String()
}

func warm(path string) {
	f, err := os.Open(path)
	check(err)
	io.Copy(io.Discard, f)
	f.Close()
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) string {
	if d >= baselineTimeout {
		return fmt.Sprintf("> %.0f s (killed)", baselineTimeout.Seconds())
	}
	return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000)
}

func mib(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func ncpu() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return bytes.Count(b, []byte("\nprocessor")) + 1
}

func goVersion() string {
	out, _ := exec.Command("go", "env", "GOVERSION").Output()
	return strings.TrimSpace(string(out))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "outline bench:", err)
		os.Exit(1)
	}
}

// genLines writes lines of 20-180 bytes, as bench/driver gen does.
func genLines(w *bufio.Writer, size int64) {
	rng := rand.New(rand.NewPCG(1, 1))
	var n int64
	line := make([]byte, 0, 200)
	for n < size {
		line = line[:0]
		l := 20 + rng.IntN(161)
		for len(line) < l-1 {
			line = append(line, byte('a'+rng.IntN(26)))
		}
		line = append(line, '\n')
		w.Write(line)
		n += int64(len(line))
	}
}

// genLog writes a service's log over one day: INFO mostly, WARN now and
// then, bursts of ERROR (with a stack trace) in three hours, different kinds.
func genLog(w *bufio.Writer, size int64) {
	rng := rand.New(rand.NewPCG(2, 2))
	var n int64
	total := size / 118 // lines in the file, about: the day ends with it
	kinds := []string{"connection refused to db-%d:5432", "timeout after %dms waiting for upstream", "panic: nil map write in handler %d"}
	for i := int64(0); n < size; i++ {
		s := min(i*86400/total, 86399)
		lv := "INFO"
		h := s / 3600
		switch {
		case (h == 4 || h == 13 || h == 21) && rng.IntN(20) == 0:
			lv = "ERROR"
		case rng.IntN(500) == 0:
			lv = "ERROR"
		case rng.IntN(50) == 0:
			lv = "WARN"
		}
		var line string
		if lv == "ERROR" {
			k := kinds[int(h)%3]
			line = fmt.Sprintf("2024-05-01T%02d:%02d:%02d.%03dZ ERROR [worker-%d] "+k+"\n\tat service.handle(handler.go:%d)\n", h, s/60%60, s%60, rng.IntN(1000), rng.IntN(8), rng.IntN(100), rng.IntN(900))
		} else {
			line = fmt.Sprintf("2024-05-01T%02d:%02d:%02d.%03dZ %s [worker-%d] request %d handled in %dms path=/api/v1/items/%d\n", h, s/60%60, s%60, rng.IntN(1000), lv, rng.IntN(8), i, rng.IntN(300), rng.IntN(100000))
		}
		w.WriteString(line)
		n += int64(len(line))
	}
}

// genJSON writes a pretty-printed array of objects.
func genJSON(w *bufio.Writer, size int64) {
	var n int64
	w.WriteString("[\n")
	for i := 0; ; i++ {
		obj := fmt.Sprintf("  {\n    \"id\": %d,\n    \"name\": \"item %d\",\n    \"tags\": [\"a\", \"b\", \"c\"],\n    \"owner\": {\"name\": \"user %d\", \"email\": \"u%d@example.com\"},\n    \"price\": %d.99\n  }", i, i, i%1000, i%1000, i%500)
		n += int64(len(obj)) + 2
		if n >= size {
			w.WriteString(obj + "\n]\n")
			return
		}
		w.WriteString(obj + ",\n")
	}
}

// genBook writes a Markdown book: parts, chapters, sections, paragraphs
// and fenced code.
func genBook(w *bufio.Writer, size int64) {
	var n int64
	para := strings.Repeat("The quick brown fox jumps over the lazy dog, and the book goes on. ", 6) + "\n\n"
	for p := 1; n < size; p++ {
		s := fmt.Sprintf("# Part %d\n\n%s", p, para)
		for c := 1; c <= 10; c++ {
			s += fmt.Sprintf("## Chapter %d.%d\n\n%s", p, c, para)
			for sec := 1; sec <= 5; sec++ {
				s += fmt.Sprintf("### Section %d.%d.%d\n\n%s%s```go\n# not a heading\nfunc f() {}\n```\n\n", p, c, sec, para, para)
			}
		}
		w.WriteString(s)
		n += int64(len(s))
	}
}

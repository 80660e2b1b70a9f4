// Command driver is the benchmark driver behind bench/run.sh: it generates the
// test file, measures the baselines (wc -l, sed, plain Go scans and copies, bash
// -c true) and drives toold over stdio as a real client (newline-delimited JSON),
// then prints a markdown table of toold beside its baselines.
//
// It imports none of the project's packages, so that it measures the binary as a
// client sees it.
//
//	driver gen   -size-mb 1024 -out bench/data/lines-1024MB.txt
//	driver genlog -size-mb 1024 -every 6 -out bench/data/errors-1024MB.log
//	driver bench -toold /tmp/toold -file bench/data/lines-1024MB.txt -runs 5
//	driver execcat -toold /tmp/toold -file bench/data/lines-1024MB.txt -errors bench/data/errors-1024MB.log
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: driver gen|genlog|bench|grow|execcat [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = genMain(os.Args[2:])
	case "genlog":
		err = genLogMain(os.Args[2:])
	case "bench":
		err = benchMain(os.Args[2:])
	case "grow":
		err = growMain(os.Args[2:])
	case "execcat":
		err = execCatMain(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "driver:", err)
		os.Exit(1)
	}
}

// ---------------------------------------------------------------------------
// gen

// genMain writes a deterministic text file of about size-mb MiB whose lines vary
// in length between 20 and 180 bytes (about 100 on average, newline included).
func genMain(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	sizeMB := fs.Int("size-mb", 1024, "size of the file in MiB")
	out := fs.String("out", "", "file to write")
	_ = fs.Parse(args)
	if *out == "" || *sizeMB <= 0 {
		return errors.New("gen: -out and a positive -size-mb are required")
	}
	target := int64(*sizeMB) << 20

	// A pool of printable text to take lines from: words of lowercase letters
	// and digits separated by spaces.
	rng := rand.New(rand.NewPCG(1, 2))
	pool := make([]byte, 1<<20)
	for i := range pool {
		if rng.IntN(7) == 0 {
			pool[i] = ' '
		} else {
			pool[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[rng.IntN(36)]
		}
	}

	tmp := *out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var written, lines int64
	for written < target {
		n := 19 + rng.IntN(161) // 19..179 bytes of text, then '\n'
		if rem := target - written - 1; int64(n) > rem {
			n = int(max(rem, 0))
		}
		off := rng.IntN(len(pool) - n)
		w.Write(pool[off : off+n])
		w.WriteByte('\n')
		written += int64(n) + 1
		lines++
	}
	return finishGen(w, f, *out, written, lines)
}

// finishGen flushes and closes a generated file written to out+".tmp"
// through w, then moves it to out.
func finishGen(w *bufio.Writer, f *os.File, out string, written, lines int64) error {
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), out); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "generated %s: %d bytes, %d lines\n", out, written, lines)
	return nil
}

// ---------------------------------------------------------------------------
// bench

type config struct {
	toold     string
	file      string
	runs      int
	deepReqs  int
	execCalls int
	tmpDir    string
}

func benchMain(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	var c config
	c.bind(fs)
	fs.IntVar(&c.deepReqs, "deep-reqs", 200, "deep reads per run")
	fs.IntVar(&c.execCalls, "exec-calls", 200, "exec true / bash -c true calls per run")
	_ = fs.Parse(args)
	size, err := c.check("bench")
	if err != nil {
		return err
	}

	logf("counting lines of %s (%s)", c.file, mib(size))
	totalLines, err := countLines(c.file)
	if err != nil {
		return err
	}
	// The deep read starts at line 5,000,000, or halfway through a smaller file.
	deep := 5_000_000
	if totalLines < int64(deep)+2000 {
		deep = int(totalLines / 2)
	}
	const deepLimit = 2000

	var r results
	r.size, r.lines, r.deep, r.runs = size, totalLines, deep, c.runs
	r.deepReqs, r.execCalls = c.deepReqs, c.execCalls
	r.loadBefore = loadAvg()

	// Baselines.
	logf("baseline: wc -l")
	if r.wc, err = repeat(c.runs, func() (time.Duration, error) {
		return timeCmd("wc", "-l", c.file)
	}); err != nil {
		return fmt.Errorf("wc -l: %w", err)
	}
	logf("baseline: Go bytes.Count")
	if r.count, err = repeat(c.runs, func() (time.Duration, error) {
		t := time.Now()
		n, err := countLines(c.file)
		if err == nil && n != totalLines {
			err = fmt.Errorf("bytes.Count found %d lines, then %d", totalLines, n)
		}
		return time.Since(t), err
	}); err != nil {
		return fmt.Errorf("bytes.Count: %w", err)
	}
	sedExpr := fmt.Sprintf("%d,%dp", deep, deep+deepLimit)
	logf("baseline: sed -n '%s'", sedExpr)
	if r.sed, err = repeat(c.runs, func() (time.Duration, error) {
		return timeCmd("sed", "-n", sedExpr, c.file)
	}); err != nil {
		return fmt.Errorf("sed: %w", err)
	}
	logf("baseline: Go bufio scan to line %d", deep)
	if r.scan, err = repeat(c.runs, func() (time.Duration, error) {
		t := time.Now()
		err := scanTo(c.file, deep, deepLimit)
		return time.Since(t), err
	}); err != nil {
		return fmt.Errorf("bufio scan: %w", err)
	}
	logf("baseline: Go loop copying cat FILE from a pipe to a file")
	if r.copy, err = repeat(c.runs, func() (time.Duration, error) {
		return pipeCopy(c.file, c.tmpDir, size, 0)
	}); err != nil {
		return fmt.Errorf("pipe copy: %w", err)
	}
	// The same loop keeping only the first 100 MiB, as toold's spool, runs
	// in turn with exec of cat (execCatRun), so that both see the same load.
	logf("baseline: bash -c true via os/exec (%d calls x %d runs)", c.execCalls, c.runs)
	for i := 0; i < c.runs; i++ {
		ds, err := repeat(c.execCalls, bashTrue)
		if err != nil {
			return fmt.Errorf("bash -c true: %w", err)
		}
		r.bashTrue = append(r.bashTrue, median(ds))
	}

	// toold: a fresh daemon per run, so that the index is cold for the first read.
	for i := 0; i < c.runs; i++ {
		logf("toold: run %d/%d: first read, RSS, %d deep reads", i+1, c.runs, c.deepReqs)
		if err := readRun(&c, &r, deep, deepLimit); err != nil {
			return err
		}
	}
	logf("toold: exec cat FILE x %d, in turn with the Go loop keeping 100 MiB", c.runs)
	if err := execCatRun(&c, &r); err != nil {
		return err
	}
	logf("toold: exec of %d MiB of error lines", r.size>>20)
	if err := execErrorsRun(&c, &r); err != nil {
		return err
	}
	logf("toold: exec true (%d calls x %d runs)", c.execCalls, c.runs)
	if err := execTrueRun(&c, &r); err != nil {
		return err
	}

	r.print(os.Stdout)
	return nil
}

// results holds every measurement, one entry per run.
type results struct {
	size, lines         int64
	deep, runs          int
	deepReqs, execCalls int

	wc, count, sed, scan, copy, copyCapped, bashTrue []time.Duration

	firstRead, deepRead  []time.Duration
	rssIndexed, hwmIndex []int64 // bytes
	deepLines            int     // lines in a deep-read window
	execCat, execTrue    []time.Duration
	hwmExecCat           int64
	execCatBytes         int64
	// exec of as many bytes as the file of nothing but error lines.
	execErrors                  time.Duration
	hwmExecErrors               int64
	errorHighlights, errorsLeft int
	notes                       []string
	loadBefore                  string
}

func readRun(c *config, r *results, deep, deepLimit int) error {
	d, err := startDaemon(c)
	if err != nil {
		return err
	}
	defer d.close()

	raw, first, err := d.call("read", map[string]any{"path": c.file})
	if err != nil {
		return d.fail("first read", err)
	}
	var w window
	if err := json.Unmarshal(raw, &w); err != nil {
		return d.fail("first read: decoding the window", err)
	}
	if w.TotalLines != r.lines || w.TotalBytes != r.size {
		r.note(fmt.Sprintf("first read reported totalLines %d, totalBytes %d; the file has %d lines, %d bytes",
			w.TotalLines, w.TotalBytes, r.lines, r.size))
	}
	r.firstRead = append(r.firstRead, first)
	rss, hwm, err := procMem(d.cmd.Process.Pid)
	if err != nil {
		return err
	}
	r.rssIndexed = append(r.rssIndexed, rss)
	r.hwmIndex = append(r.hwmIndex, hwm)

	params := map[string]any{"path": c.file, "offset": deep, "limit": deepLimit, "maxBytes": 262144}
	var per []time.Duration
	for i := 0; i < c.deepReqs; i++ {
		raw, el, err := d.call("read", params)
		per = append(per, el)
		if err != nil {
			return d.fail("deep read", err)
		}
		if i == 0 {
			var w window
			if err := json.Unmarshal(raw, &w); err != nil {
				return d.fail("deep read: decoding the window", err)
			}
			if w.StartLine != int64(deep) {
				r.note(fmt.Sprintf("deep read at offset %d answered startLine %d", deep, w.StartLine))
			}
			r.deepLines = int(w.EndLine - w.StartLine + 1)
		}
	}
	r.deepRead = append(r.deepRead, median(per))
	return nil
}

func execCatRun(c *config, r *results) error {
	d, err := startDaemon(c)
	if err != nil {
		return err
	}
	defer d.close()
	params := map[string]any{"command": "cat " + shellQuote(c.file), "timeoutMs": 600000}
	for i := 0; i < c.runs; i++ {
		if r.size > spoolCap {
			el, err := pipeCopy(c.file, c.tmpDir, r.size, spoolCap)
			if err != nil {
				return fmt.Errorf("pipe copy (capped): %w", err)
			}
			r.copyCapped = append(r.copyCapped, el)
		}
		raw, el, err := d.callTimeout("exec", params, 10*time.Minute)
		if err != nil {
			return d.fail("exec cat", err)
		}
		var x execResult
		if err := json.Unmarshal(raw, &x); err != nil {
			return d.fail("exec cat: decoding the result", err)
		}
		if x.ExitCode == nil || *x.ExitCode != 0 || x.Stdout.TotalBytes != r.size {
			r.note(fmt.Sprintf("exec cat: exitCode %v, stdout.totalBytes %d (file %d)", fmtPtr(x.ExitCode), x.Stdout.TotalBytes, r.size))
		}
		r.execCat = append(r.execCat, el)
		r.execCatBytes = x.Stdout.TotalBytes
	}
	_, hwm, err := procMem(d.cmd.Process.Pid)
	if err != nil {
		return err
	}
	r.hwmExecCat = hwm
	return nil
}

// execErrorsRun runs, in a fresh daemon, a command that prints as many
// bytes as the file of nothing but error lines, each of which the
// highlight detector matches: its memory must stay bounded all the same.
func execErrorsRun(c *config, r *results) error {
	d, err := startDaemon(c)
	if err != nil {
		return err
	}
	defer d.close()
	cmd := fmt.Sprintf("yes '2026-11-22 02:00:00,123 ERROR worker: request 42 failed: connection refused' | head -c %d", r.size)
	raw, el, err := d.callTimeout("exec", map[string]any{"command": cmd, "timeoutMs": 600000}, 10*time.Minute)
	if err != nil {
		return d.fail("exec of error lines", err)
	}
	var x execResult
	if err := json.Unmarshal(raw, &x); err != nil {
		return d.fail("exec of error lines: decoding the result", err)
	}
	if x.Stdout.TotalBytes != r.size {
		r.note(fmt.Sprintf("exec of error lines: stdout.totalBytes %d (want %d)", x.Stdout.TotalBytes, r.size))
	}
	r.execErrors, r.errorHighlights, r.errorsLeft = el, len(x.Stdout.Highlights), x.Stdout.HighlightsOmitted
	_, r.hwmExecErrors, err = procMem(d.cmd.Process.Pid)
	return err
}

func execTrueRun(c *config, r *results) error {
	d, err := startDaemon(c)
	if err != nil {
		return err
	}
	defer d.close()
	params := map[string]any{"command": "true"}
	// One call first, so that the daemon's own start-up is not measured.
	if _, _, err := d.call("exec", params); err != nil {
		return d.fail("exec true", err)
	}
	for i := 0; i < c.runs; i++ {
		var per []time.Duration
		for j := 0; j < c.execCalls; j++ {
			raw, el, err := d.call("exec", params)
			per = append(per, el)
			if err != nil {
				return d.fail("exec true", err)
			}
			if j == 0 {
				var x execResult
				if err := json.Unmarshal(raw, &x); err != nil {
					return d.fail("exec true: decoding the result", err)
				}
				if x.ExitCode == nil || *x.ExitCode != 0 {
					r.note(fmt.Sprintf("exec true: exitCode %v", fmtPtr(x.ExitCode)))
				}
			}
		}
		r.execTrue = append(r.execTrue, median(per))
	}
	return nil
}

// window holds the fields of a window result that the driver checks.
type window struct {
	StartLine  int64 `json:"startLine"`
	EndLine    int64 `json:"endLine"`
	TotalLines int64 `json:"totalLines"`
	TotalBytes int64 `json:"totalBytes"`
}

// execResult holds the fields of an exec result that the driver checks.
type execResult struct {
	ExitCode *int `json:"exitCode"`
	Stdout   struct {
		TotalBytes        int64             `json:"totalBytes"`
		Highlights        []json.RawMessage `json:"highlights"`
		HighlightsOmitted int               `json:"highlightsOmitted"`
	} `json:"stdout"`
}

func (r *results) note(s string) {
	if !slices.Contains(r.notes, s) {
		r.notes = append(r.notes, s)
	}
}

// ---------------------------------------------------------------------------
// The daemon, driven as a client over stdio with newline-delimited JSON.

type daemon struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  *bufio.Reader
	stderr  string // log file
	nextID  int
	exited  chan struct{}
	waitErr error
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("JSON-RPC error %d: %s %s", e.Code, e.Message, e.Data)
}

func startDaemon(c *config) (*daemon, error) {
	logFile, err := os.CreateTemp(c.tmpDir, "toold-bench-*.log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(c.toold)
	cmd.Dir = filepath.Dir(c.file)
	cmd.Stderr = logFile
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", c.toold, err)
	}
	logFile.Close()
	d := &daemon{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20),
		stderr: logFile.Name(), exited: make(chan struct{})}
	go func() {
		d.waitErr = cmd.Wait()
		close(d.exited)
	}()
	_, _, err = d.call("initialize", map[string]any{
		"clientInfo": map[string]any{"name": "toold-bench", "version": "1"},
		"cwd":        filepath.Dir(c.file),
	})
	if err != nil {
		d.close()
		return nil, d.fail("initialize", err)
	}
	return d, nil
}

func (d *daemon) call(method string, params any) (json.RawMessage, time.Duration, error) {
	return d.callTimeout(method, params, time.Minute)
}

// callTimeout sends one request and reads lines until its reply. It returns the
// raw result and the time from writing the request to the last byte of the
// reply: decoding the reply, which the client does after, is not measured.
func (d *daemon) callTimeout(method string, params any, timeout time.Duration) (json.RawMessage, time.Duration, error) {
	d.nextID++
	id := d.nextID
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, 0, err
	}
	msg = append(msg, '\n')
	start := time.Now()
	if _, err := d.stdin.Write(msg); err != nil {
		return nil, 0, fmt.Errorf("writing %s: %w", method, err)
	}
	timer := time.AfterFunc(timeout, func() { d.cmd.Process.Kill() })
	defer timer.Stop()
	for {
		line, err := d.readLine()
		el := time.Since(start)
		if err != nil {
			return nil, 0, fmt.Errorf("reading the reply to %s: %w", method, err)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var reply struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *rpcError       `json:"error"`
		}
		// Only the envelope is decoded here; Result stays raw.
		if err := json.Unmarshal(line, &reply); err != nil {
			return nil, 0, fmt.Errorf("reply to %s is not JSON (%w): %.200s", method, err, line)
		}
		if string(reply.ID) != strconv.Itoa(id) {
			continue // a notification or someone else's reply
		}
		if reply.Error != nil {
			return nil, el, reply.Error
		}
		return reply.Result, el, nil
	}
}

func (d *daemon) readLine() ([]byte, error) {
	line, err := d.stdout.ReadSlice('\n')
	if err == nil {
		return line, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	buf := append([]byte(nil), line...)
	for {
		line, err = d.stdout.ReadSlice('\n')
		buf = append(buf, line...)
		if err == nil {
			return buf, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

// fail wraps err with the tail of the daemon's log.
func (d *daemon) fail(what string, err error) error {
	log, _ := os.ReadFile(d.stderr)
	if len(log) > 3000 {
		log = log[len(log)-3000:]
	}
	return fmt.Errorf("toold %s: %w\n--- toold stderr (tail) ---\n%s", what, err, log)
}

// close ends the daemon as a client should (shutdown, exit), and kills it if it
// does not go.
func (d *daemon) close() {
	select {
	case <-d.exited:
	default:
		if _, _, err := d.callTimeout("shutdown", nil, 5*time.Second); err == nil {
			d.stdin.Write([]byte(`{"jsonrpc":"2.0","method":"exit"}` + "\n"))
		}
		d.stdin.Close()
		select {
		case <-d.exited:
		case <-time.After(5 * time.Second):
			d.cmd.Process.Kill()
			<-d.exited
		}
	}
	os.Remove(d.stderr)
}

// procMem reads VmRSS and VmHWM (bytes) of a process.
func procMem(pid int) (rss, hwm int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			hwm = kb << 10
		}
	}
	return rss, hwm, nil
}

// ---------------------------------------------------------------------------
// Baselines.

// countLines is the plain Go scan: bytes.Count of '\n' over 1 MiB reads, plus a
// last line without '\n'.
func countLines(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var n int64
	var last byte = '\n'
	for {
		k, err := f.Read(buf)
		if k > 0 {
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}

// scanTo is the plain Go streaming scan: bufio.Scanner to line `from`, then
// `limit` lines kept.
func scanTo(path string, from, limit int) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []byte
	line := 0
	for sc.Scan() {
		line++
		if line >= from {
			out = append(out, sc.Bytes()...)
			out = append(out, '\n')
			if line >= from+limit-1 {
				break
			}
		}
	}
	if len(out) == 0 {
		return fmt.Errorf("scan found no line %d", from)
	}
	return sc.Err()
}

// spoolCap is toold's spool cap per stream: past it, output is counted, not kept.
const spoolCap = 100 << 20

// pipeCopy is the plain Go loop: cat FILE through a pipe, io.Copy into a file.
// With keep > 0 only the first keep bytes go to the file and the rest is read
// and dropped, as toold's spool does past its cap.
func pipeCopy(path, tmpDir string, size, keep int64) (time.Duration, error) {
	out, err := os.CreateTemp(tmpDir, "bench-copy-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	t := time.Now()
	cmd := exec.Command("cat", path)
	p, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	var n int64
	if keep > 0 {
		n, err = io.Copy(out, io.LimitReader(p, keep))
		if err == nil {
			var m int64
			m, err = io.Copy(io.Discard, p)
			n += m
		}
	} else {
		n, err = io.Copy(out, p)
	}
	if werr := cmd.Wait(); err == nil {
		err = werr
	}
	el := time.Since(t)
	if err == nil && n != size {
		err = fmt.Errorf("copied %d bytes of %d", n, size)
	}
	return el, err
}

// bashTrue is one bash -c true started as toold starts a command: pipes for
// stdout and stderr, its own process group.
func bashTrue() (time.Duration, error) {
	t := time.Now()
	cmd := exec.Command("bash", "-c", "true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	io.Copy(io.Discard, stdout)
	io.Copy(io.Discard, stderr)
	err = cmd.Wait()
	return time.Since(t), err
}

// timeCmd times a command with its stdout to /dev/null.
func timeCmd(name string, args ...string) (time.Duration, error) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return 0, err
	}
	defer null.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdout = null
	cmd.Stderr = os.Stderr
	t := time.Now()
	err = cmd.Run()
	return time.Since(t), err
}

// repeat runs f n times and returns the durations it measured.
func repeat(n int, f func() (time.Duration, error)) ([]time.Duration, error) {
	ds := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		d, err := f()
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// ---------------------------------------------------------------------------
// Output.

func (r *results) print(w io.Writer) {
	fmt.Fprintf(w, "## toold benchmark\n\n")
	fmt.Fprintf(w, "File: %s, %d lines; runs: %d (median shown); %s, %d CPUs, %s; load average %s before, %s after.\n\n",
		mib(r.size), r.lines, r.runs, runtime.Version(), runtime.NumCPU(), kernel(), r.loadBefore, loadAvg())

	fmt.Fprintln(w, "| measurement | toold | baseline | ratio | target |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")

	first, wc, cnt := median(r.firstRead), median(r.wc), median(r.count)
	row(w, "first `read` of the file (cold index, fresh daemon)", ms(first),
		fmt.Sprintf("`wc -l` %s (Go `bytes.Count` %s)", ms(wc), ms(cnt)),
		ratio(first.Seconds(), wc.Seconds()),
		verdict("≤ 1.2× wc -l", first.Seconds() <= 1.2*wc.Seconds()))

	deep := median(r.deepRead)
	row(w, fmt.Sprintf("`read` offset=%d limit=2000 (%d lines back; median of %d per run)", r.deep, r.deepLines, r.deepReqs),
		ms(deep),
		fmt.Sprintf("`sed -n` %s; Go bufio scan %s", ms(median(r.sed)), ms(median(r.scan))),
		ratio(deep.Seconds(), median(r.sed).Seconds())+" of sed",
		verdict("< 1 ms", deep < time.Millisecond))

	rss, hwm := maxOf(r.rssIndexed), maxOf(r.hwmIndex)
	row(w, "daemon RSS after indexing (VmRSS, worst run)", mib(rss), "—", "—",
		verdict("< 64 MiB", rss < 64<<20))
	row(w, "daemon peak RSS through indexing (VmHWM, worst run)", mib(hwm), "—", "—", "(information)")

	// The baseline keeps what the spool keeps (its first 100 MiB) when it
	// was measured; else it is the plain copy.
	cat, cp := mbps(r.size, median(r.execCat)), mbps(r.size, median(r.copy))
	base, baseName := cp, fmt.Sprintf("Go pipe→file copy %.0f MiB/s (%s)", cp, ms(median(r.copy)))
	if len(r.copyCapped) > 0 {
		base = mbps(r.size, median(r.copyCapped))
		baseName = fmt.Sprintf("Go pipe→file loop keeping 100 MiB as the spool does, runs interleaved with exec's: %.0f MiB/s (%s); copying all of it %.0f MiB/s",
			base, ms(median(r.copyCapped)), cp)
	}
	row(w, "`exec` of `cat FILE` (throughput; clean-up and highlight detection included)", fmt.Sprintf("%.0f MiB/s (%s)", cat, ms(median(r.execCat))),
		baseName, ratio(cat, base), verdict("≥ 0.8× the plain loop", cat >= 0.8*base))
	row(w, "daemon peak RSS after the `exec cat` runs (VmHWM)", mib(r.hwmExecCat), "—", "—",
		verdict("< 64 MiB", r.hwmExecCat < 64<<20))
	if r.execErrors > 0 {
		row(w, fmt.Sprintf("`exec` of %s of nothing but error lines: daemon peak RSS (VmHWM, fresh daemon)", mib(r.size)), mib(r.hwmExecErrors),
			fmt.Sprintf("%.0f MiB/s; %d groups shown, %d left out", mbps(r.size, r.execErrors), r.errorHighlights, r.errorsLeft), "—",
			verdict("< 64 MiB", r.hwmExecErrors < 64<<20))
	}

	et, bt := median(r.execTrue), median(r.bashTrue)
	row(w, fmt.Sprintf("`exec` of `true`, per call (median of %d per run)", r.execCalls), ms(et),
		fmt.Sprintf("`bash -c true` via os/exec %s", ms(bt)),
		ratio(et.Seconds(), bt.Seconds()),
		verdict("≤ 1.3× bash -c true", et.Seconds() <= 1.3*bt.Seconds()))

	fmt.Fprintln(w)
	fmt.Fprintln(w, "Baselines (median of runs):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| baseline | time |")
	fmt.Fprintln(w, "| --- | --- |")
	fmt.Fprintf(w, "| `wc -l FILE` | %s |\n", ms(wc))
	fmt.Fprintf(w, "| Go `bytes.Count` over 1 MiB reads | %s |\n", ms(cnt))
	fmt.Fprintf(w, "| `sed -n '%d,%dp' FILE > /dev/null` | %s |\n", r.deep, r.deep+2000, ms(median(r.sed)))
	fmt.Fprintf(w, "| Go bufio.Scanner to line %d | %s |\n", r.deep, ms(median(r.scan)))
	fmt.Fprintf(w, "| Go `cat FILE` pipe → io.Copy → temp file | %s (%.0f MiB/s) |\n", ms(median(r.copy)), cp)
	if len(r.copyCapped) > 0 {
		fmt.Fprintf(w, "| the same, first 100 MiB to the file, the rest dropped (toold's spool cap) | %s (%.0f MiB/s) |\n",
			ms(median(r.copyCapped)), mbps(r.size, median(r.copyCapped)))
	}
	fmt.Fprintf(w, "| `bash -c true` via os/exec, pipes, Setpgid (per call) | %s |\n", ms(bt))
	if len(r.notes) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Notes:")
		for _, n := range r.notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
	}
}

func row(w io.Writer, cells ...string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
}

func verdict(target string, ok bool) string {
	if ok {
		return target + ": ok"
	}
	return target + ": **MISSED**"
}

func ratio(a, b float64) string {
	if b == 0 || math.IsNaN(a/b) {
		return "—"
	}
	r := a / b
	if r < 0.01 {
		return fmt.Sprintf("%.4f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func maxOf(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	return slices.Max(xs)
}

func ms(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.3f ms", float64(d)/1e6)
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	}
}

func mib(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func mbps(size int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(size) / (1 << 20) / d.Seconds()
}

func kernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return runtime.GOOS
	}
	return "Linux " + strings.TrimSpace(string(b))
}

// loadAvg is the 1-minute load average: other work on the machine skews every
// figure, so the table says how busy it was.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

func fmtPtr(p *int) string {
	if p == nil {
		return "null"
	}
	return strconv.Itoa(*p)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

// bind adds the flags every driver command takes.
func (c *config) bind(fs *flag.FlagSet) {
	fs.StringVar(&c.toold, "toold", "", "toold binary")
	fs.StringVar(&c.file, "file", "", "the generated text file")
	fs.IntVar(&c.runs, "runs", 5, "runs per measurement (the median is reported)")
	fs.StringVar(&c.tmpDir, "tmp", os.TempDir(), "scratch directory")
}

// check checks the flags bind added, makes -file absolute and returns its
// size.
func (c *config) check(cmd string) (int64, error) {
	if c.toold == "" || c.file == "" || c.runs < 1 {
		return 0, errors.New(cmd + ": -toold, -file and -runs >= 1 are required")
	}
	abs, err := filepath.Abs(c.file)
	if err != nil {
		return 0, err
	}
	c.file = abs
	st, err := os.Stat(c.file)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

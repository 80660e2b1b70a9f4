package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// execCatMain measures exec of cat FILE beside the Go pipe→file loop that
// keeps what the spool keeps (its first 100 MiB), and with -errors the same
// for an error-dense log (bench/driver genlog) and exec of true beside bash
// -c true from os/exec with pipes: every pair runs interleaved (loop, exec,
// loop, exec, ...) so that both sides see the same load, on one daemon
// whose peak RSS is reported. It prints the medians and their ratios: the
// comparisons a change to exec's capture moves, in a few minutes rather
// than bench/run.sh's whole table. Beside the wall clock, which a shared
// machine's neighbours move, it prints the CPU time (user+sys) that each
// side spends: the daemon's own per exec, the loop's own per copy, and
// cat's (the same work on both sides).
func execCatMain(args []string) error {
	fs := flag.NewFlagSet("execcat", flag.ExitOnError)
	var c config
	c.bind(fs)
	errFile := fs.String("errors", "", "error-dense logs (driver genlog), comma-separated, to measure too")
	calls := fs.Int("exec-calls", 100, "exec true / bash -c true calls per run (0: none)")
	extra := fs.String("exec-params", "", `more exec params for every exec, as JSON: {"yieldMs":600000} runs the command as a process (watched for input), {"tty":true} on a terminal`)
	_ = fs.Parse(args)
	if *extra != "" {
		if err := json.Unmarshal([]byte(*extra), &execExtra); err != nil {
			return fmt.Errorf("-exec-params: %w", err)
		}
	}
	size, err := c.check("execcat")
	if err != nil {
		return err
	}
	d, err := startDaemon(&c)
	if err != nil {
		return err
	}
	defer d.close()
	load := loadAvg()
	type row struct {
		name       string
		loop, exec []time.Duration
		cpu        []callCPU
		size       int64
	}
	rows := []*row{{name: "clean text (" + c.file + ")", size: size}}
	files := []string{c.file}
	for _, f := range strings.Split(*errFile, ",") {
		if f == "" {
			continue
		}
		if f, err = filepath.Abs(f); err != nil {
			return err
		}
		st, err := os.Stat(f)
		if err != nil {
			return err
		}
		rows = append(rows, &row{name: "error-dense log (" + f + ")", size: st.Size()})
		files = append(files, f)
	}
	var bash, tru, truCPU []time.Duration
	for i := 0; i < c.runs; i++ {
		for k, r := range rows {
			l, e, cpu, err := execCatOnce(d, files[k], c.tmpDir, r.size)
			if err != nil {
				return err
			}
			r.loop, r.exec, r.cpu = append(r.loop, l), append(r.exec, e), append(r.cpu, cpu)
			logf("run %d, %s: loop %s, exec cat %s; CPU: loop %s, daemon %s", i+1, r.name, ms(l), ms(e), ms(cpu.loop), ms(cpu.daemon))
		}
		if *calls > 0 {
			b, t, cpu, err := execTrueOnce(d, *calls)
			if err != nil {
				return err
			}
			bash, tru, truCPU = append(bash, b), append(tru, t), append(truCPU, cpu)
			logf("run %d: bash -c true %s, exec true %s (daemon CPU %s a call)", i+1, ms(b), ms(t), ms(cpu))
		}
	}
	_, hwm, err := procMem(d.cmd.Process.Pid)
	if err != nil {
		return err
	}
	fmt.Printf("| medians of %d interleaved runs, load average %s before, %s after | baseline | toold | ratio (baseline / toold time) |\n| --- | ---: | ---: | ---: |\n", c.runs, load, loadAvg())
	for _, r := range rows {
		l, e := median(r.loop), median(r.exec)
		fmt.Printf("| %s, %s: Go pipe→file loop keeping 100 MiB vs `exec` of `cat FILE` | %.0f MiB/s (%s) | %.0f MiB/s (%s) | %.2fx |\n",
			r.name, mib(r.size), mbps(r.size, l), ms(l), mbps(r.size, e), ms(e), float64(l)/float64(e))
	}
	if *calls > 0 {
		b, t := median(bash), median(tru)
		fmt.Printf("| `bash -c true` from os/exec with pipes vs `exec` of `true` (median of %d calls per run) | %s | %s | %.2fx of bash's time |\n", *calls, ms(b), ms(t), float64(t)/float64(b))
	}
	fmt.Printf("| daemon peak RSS (VmHWM) | | %s | |\n", mib(hwm))
	fmt.Printf("\n| CPU time (user+sys), medians | loop | daemon | cat under the loop / under toold |\n| --- | ---: | ---: | ---: |\n")
	for _, r := range rows {
		fmt.Printf("| %s | %s (%s/GiB) | %s (%s/GiB) | %s / %s |\n", r.name,
			ms(medianOf(r.cpu, func(c callCPU) time.Duration { return c.loop })), perGiB(medianOf(r.cpu, func(c callCPU) time.Duration { return c.loop }), r.size),
			ms(medianOf(r.cpu, func(c callCPU) time.Duration { return c.daemon })), perGiB(medianOf(r.cpu, func(c callCPU) time.Duration { return c.daemon }), r.size),
			ms(medianOf(r.cpu, func(c callCPU) time.Duration { return c.loopCat })), ms(medianOf(r.cpu, func(c callCPU) time.Duration { return c.execCat })))
	}
	if *calls > 0 {
		fmt.Printf("| `exec` of `true`, a call | | %s | |\n", ms(median(truCPU)))
	}
	return nil
}

// execExtra are -exec-params: given to every exec.
var execExtra map[string]any

// withExtra is params with execExtra's.
func withExtra(params map[string]any) map[string]any {
	for k, v := range execExtra {
		params[k] = v
	}
	return params
}

// callCPU is the CPU time (user+sys) of one pair of execCatOnce: the loop's
// own (this process) and its cat's, the daemon's own and its cat's.
type callCPU struct {
	loop, loopCat, daemon, execCat time.Duration
}

func medianOf(cs []callCPU, f func(callCPU) time.Duration) time.Duration {
	ds := make([]time.Duration, len(cs))
	for i, c := range cs {
		ds[i] = f(c)
	}
	return median(ds)
}

// perGiB is d scaled to a GiB of size bytes.
func perGiB(d time.Duration, size int64) string {
	return ms(time.Duration(float64(d) * float64(1<<30) / float64(size)))
}

// selfCPU returns this process's CPU time and its waited-for children's.
func selfCPU() (self, children time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		children = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return self, children
}

// procCPU returns the CPU time of process pid (all its threads) and of
// its waited-for children, from /proc/pid/stat (clock ticks of 10 ms).
func procCPU(pid int) (self, children time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The fields after the command's name (which may hold spaces) in ")".
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	var t [4]int64
	for i := range t {
		t[i], _ = strconv.ParseInt(f[11+i], 10, 64) // utime, stime, cutime, cstime
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(t[0]+t[1]) * tick, time.Duration(t[2]+t[3]) * tick, nil
}

// execCatOnce times the pipe→file loop over file, then exec of cat file,
// and measures the CPU time each spends.
func execCatOnce(d *daemon, file, tmpDir string, size int64) (loop, ex time.Duration, cpu callCPU, err error) {
	s0, c0 := selfCPU()
	if loop, err = pipeCopy(file, tmpDir, size, spoolCap); err != nil {
		return 0, 0, cpu, fmt.Errorf("pipe copy (capped): %w", err)
	}
	s1, c1 := selfCPU()
	cpu.loop, cpu.loopCat = s1-s0, c1-c0
	pid := d.cmd.Process.Pid
	d0, dc0, err := procCPU(pid)
	if err != nil {
		return 0, 0, cpu, err
	}
	params := withExtra(map[string]any{"command": "cat " + shellQuote(file), "timeoutMs": 600000})
	raw, ex, err := d.callTimeout("exec", params, 10*time.Minute)
	if err != nil {
		return 0, 0, cpu, d.fail("exec cat", err)
	}
	d1, dc1, err := procCPU(pid)
	if err != nil {
		return 0, 0, cpu, err
	}
	cpu.daemon, cpu.execCat = d1-d0, dc1-dc0
	var x execResult
	if err := json.Unmarshal(raw, &x); err != nil || x.Stdout.TotalBytes != size {
		return 0, 0, cpu, fmt.Errorf("exec cat: %d bytes of %d (%v)", x.Stdout.TotalBytes, size, err)
	}
	return loop, ex, cpu, nil
}

// execTrueOnce is the median of n bash -c true from os/exec, and of n exec
// of true, in turn, and the daemon's CPU time per exec of true (on
// average: the daemon is idle while bash runs).
func execTrueOnce(d *daemon, n int) (bash, tru, cpu time.Duration, err error) {
	var bs, ts []time.Duration
	params := withExtra(map[string]any{"command": "true"})
	d0, _, err := procCPU(d.cmd.Process.Pid)
	if err != nil {
		return 0, 0, 0, err
	}
	for j := 0; j < n; j++ {
		b, err := bashTrue()
		if err != nil {
			return 0, 0, 0, fmt.Errorf("bash -c true: %w", err)
		}
		_, t, err := d.call("exec", params)
		if err != nil {
			return 0, 0, 0, d.fail("exec true", err)
		}
		bs, ts = append(bs, b), append(ts, t)
	}
	d1, _, err := procCPU(d.cmd.Process.Pid)
	if err != nil {
		return 0, 0, 0, err
	}
	return median(bs), median(ts), (d1 - d0) / time.Duration(n), nil
}

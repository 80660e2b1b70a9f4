package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// execCatMain measures exec of cat FILE beside the Go pipe→file loop that
// keeps what the spool keeps (its first 100 MiB), and with -errors the same
// for an error-dense log (bench/driver genlog) and exec of true beside bash
// -c true from os/exec with pipes: every pair runs interleaved (loop, exec,
// loop, exec, ...) so that both sides see the same load, on one daemon
// whose peak RSS is reported. It prints the medians and their ratios: the
// comparisons a change to exec's capture moves, in a few minutes rather
// than bench/run.sh's whole table.
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
	var bash, tru []time.Duration
	for i := 0; i < c.runs; i++ {
		for k, r := range rows {
			l, e, err := execCatOnce(d, files[k], c.tmpDir, r.size)
			if err != nil {
				return err
			}
			r.loop, r.exec = append(r.loop, l), append(r.exec, e)
			logf("run %d, %s: loop %s, exec cat %s", i+1, r.name, ms(l), ms(e))
		}
		if *calls > 0 {
			b, t, err := execTrueOnce(d, *calls)
			if err != nil {
				return err
			}
			bash, tru = append(bash, b), append(tru, t)
			logf("run %d: bash -c true %s, exec true %s", i+1, ms(b), ms(t))
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

// execCatOnce times the pipe→file loop over file, then exec of cat file.
func execCatOnce(d *daemon, file, tmpDir string, size int64) (loop, ex time.Duration, err error) {
	if loop, err = pipeCopy(file, tmpDir, size, spoolCap); err != nil {
		return 0, 0, fmt.Errorf("pipe copy (capped): %w", err)
	}
	params := withExtra(map[string]any{"command": "cat " + shellQuote(file), "timeoutMs": 600000})
	raw, ex, err := d.callTimeout("exec", params, 10*time.Minute)
	if err != nil {
		return 0, 0, d.fail("exec cat", err)
	}
	var x execResult
	if err := json.Unmarshal(raw, &x); err != nil || x.Stdout.TotalBytes != size {
		return 0, 0, fmt.Errorf("exec cat: %d bytes of %d (%v)", x.Stdout.TotalBytes, size, err)
	}
	return loop, ex, nil
}

// execTrueOnce is the median of n bash -c true from os/exec, and of n exec
// of true, in turn.
func execTrueOnce(d *daemon, n int) (bash, tru time.Duration, err error) {
	var bs, ts []time.Duration
	params := withExtra(map[string]any{"command": "true"})
	for j := 0; j < n; j++ {
		b, err := bashTrue()
		if err != nil {
			return 0, 0, fmt.Errorf("bash -c true: %w", err)
		}
		_, t, err := d.call("exec", params)
		if err != nil {
			return 0, 0, d.fail("exec true", err)
		}
		bs, ts = append(bs, b), append(ts, t)
	}
	return median(bs), median(ts), nil
}

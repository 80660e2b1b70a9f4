package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// execCatMain measures exec of cat FILE beside the Go pipe→file loop that
// keeps what the spool keeps (its first 100 MiB), runs interleaved so that
// both see the same load, and prints their medians and ratio: the one
// comparison of bench/run.sh that a change to exec's capture moves, in a
// minute rather than the whole table's ten.
func execCatMain(args []string) error {
	fs := flag.NewFlagSet("execcat", flag.ExitOnError)
	var c config
	fs.StringVar(&c.toold, "toold", "", "toold binary")
	fs.StringVar(&c.file, "file", "", "the generated text file")
	fs.IntVar(&c.runs, "runs", 5, "runs of each (the median is reported)")
	fs.StringVar(&c.tmpDir, "tmp", os.TempDir(), "scratch directory")
	_ = fs.Parse(args)
	if c.toold == "" || c.file == "" || c.runs < 1 {
		return errors.New("execcat: -toold, -file and -runs >= 1 are required")
	}
	abs, err := filepath.Abs(c.file)
	if err != nil {
		return err
	}
	c.file = abs
	st, err := os.Stat(c.file)
	if err != nil {
		return err
	}
	size := st.Size()
	d, err := startDaemon(&c)
	if err != nil {
		return err
	}
	defer d.close()
	params := map[string]any{"command": "cat " + shellQuote(c.file), "timeoutMs": 600000}
	var loop, cat []time.Duration
	load := loadAvg()
	for i := 0; i < c.runs; i++ {
		el, err := pipeCopy(c.file, c.tmpDir, size, spoolCap)
		if err != nil {
			return fmt.Errorf("pipe copy (capped): %w", err)
		}
		loop = append(loop, el)
		raw, el, err := d.callTimeout("exec", params, 10*time.Minute)
		if err != nil {
			return d.fail("exec cat", err)
		}
		var x execResult
		if err := json.Unmarshal(raw, &x); err != nil || x.Stdout.TotalBytes != size {
			return fmt.Errorf("exec cat: %d bytes of %d (%v)", x.Stdout.TotalBytes, size, err)
		}
		cat = append(cat, el)
		logf("run %d: loop %s, exec cat %s", i+1, ms(loop[i]), ms(cat[i]))
	}
	_, hwm, err := procMem(d.cmd.Process.Pid)
	if err != nil {
		return err
	}
	l, e := median(loop), median(cat)
	fmt.Printf("| %s, medians of %d interleaved runs, load average %s | MiB/s | ms |\n| --- | ---: | ---: |\n", mib(size), c.runs, load)
	fmt.Printf("| Go pipe→file loop keeping 100 MiB | %.0f | %s |\n", mbps(size, l), ms(l))
	fmt.Printf("| `exec` of `cat FILE` | %.0f | %s |\n", mbps(size, e), ms(e))
	fmt.Printf("| ratio (exec / loop) | %.2fx | |\n| daemon peak RSS | %s | |\n", float64(l)/float64(e), mib(hwm))
	return nil
}

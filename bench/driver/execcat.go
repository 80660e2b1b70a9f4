package main

import (
	"encoding/json"
	"flag"
	"fmt"
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
	c.bind(fs)
	_ = fs.Parse(args)
	size, err := c.check("execcat")
	if err != nil {
		return err
	}
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

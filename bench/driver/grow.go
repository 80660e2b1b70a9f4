package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// growMain measures a growing log: the last 100 lines of a log that
// grows by -append-kb every -every, polled as fast as possible for -for, by
// toold (a read for totalLines, then the read of the tail) and, between
// polls, by tail -n 100 for a baseline. It prints a markdown table.
func growMain(args []string) error {
	fs := flag.NewFlagSet("grow", flag.ExitOnError)
	var c config
	fs.StringVar(&c.toold, "toold", "", "toold binary")
	fs.StringVar(&c.file, "file", "", "the log: a copy of the generated file, appended to")
	fs.StringVar(&c.tmpDir, "tmp", os.TempDir(), "scratch directory")
	appendKB := fs.Int("append-kb", 1024, "KiB appended at each tick")
	every := fs.Duration("every", 100*time.Millisecond, "time between appends")
	dur := fs.Duration("for", 30*time.Second, "how long to poll")
	_ = fs.Parse(args)
	if c.toold == "" || c.file == "" {
		return errors.New("grow: -toold and -file are required")
	}
	d, err := startDaemon(&c)
	if err != nil {
		return err
	}
	defer d.close()

	// The first read builds the index from scratch: measured apart, before
	// the log starts to grow.
	_, cold, err := tailLines(d, c.file)
	if err != nil {
		return err
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var appendErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		appendErr = appendLoop(c.file, *appendKB<<10, *every, stop)
	}()
	var reads, polls, tails []time.Duration
	deadline := time.Now().Add(*dur)
	for time.Now().Before(deadline) {
		total, t1, err := tailLines(d, c.file)
		if err != nil {
			close(stop)
			wg.Wait()
			return err
		}
		_, t2, err := d.call("read", map[string]any{"path": c.file, "offset": max(1, total-99), "limit": 100})
		if err != nil {
			close(stop)
			wg.Wait()
			return d.fail("read", err)
		}
		reads = append(reads, t1, t2)
		polls = append(polls, t1+t2)
		t, err := timeCmd("tail", "-n", "100", c.file)
		if err != nil {
			close(stop)
			wg.Wait()
			return err
		}
		tails = append(tails, t)
	}
	close(stop)
	wg.Wait()
	if appendErr != nil {
		return appendErr
	}
	var st struct {
		Cache struct {
			Hits, Misses, Invalidations int64
		} `json:"cache"`
	}
	raw, _, err := d.call("stats", nil)
	if err == nil {
		json.Unmarshal(raw, &st)
	}
	fi, _ := os.Stat(c.file)
	fmt.Printf("## Growing log: the last 100 lines, polled for %s while %d KiB are appended every %s\n\n",
		*dur, *appendKB, *every)
	fmt.Printf("Log at the end: %s. Kernel %s, load %s. The first read, which builds the index, took %s (not counted below). "+
		"Cache: %d hits, %d misses (builds), %d invalidations.\n\n",
		mib(fi.Size()), kernel(), loadAvg(), ms(cold), st.Cache.Hits, st.Cache.Misses, st.Cache.Invalidations)
	row(os.Stdout, "measure", "n", "median", "p99", "max")
	row(os.Stdout, "---", "---:", "---:", "---:", "---:")
	for _, m := range []struct {
		name string
		ds   []time.Duration
	}{{"toold read (either request)", reads}, {"toold poll (totalLines, then the tail)", polls}, {"tail -n 100 (process)", tails}} {
		row(os.Stdout, m.name, fmt.Sprint(len(m.ds)), ms(median(m.ds)), ms(pct(m.ds, 0.99)), ms(slices.Max(m.ds)))
	}
	fmt.Println()
	fmt.Printf("p99 of a toold read beside tail -n 100's: %s. Reads above 20 ms: toold %d of %d, tail -n 100 %d of %d. Target: %s\n",
		ratio(pct(reads, 0.99).Seconds(), pct(tails, 0.99).Seconds()),
		above(reads, 20*time.Millisecond), len(reads), above(tails, 20*time.Millisecond), len(tails),
		verdict("no toold read above 20 ms", slices.Max(reads) < 20*time.Millisecond))
	return nil
}

// tailLines asks toold for the log's line count: a one-line read, whose
// totalLines is the count as of the open.
func tailLines(d *daemon, path string) (int64, time.Duration, error) {
	raw, el, err := d.call("read", map[string]any{"path": path, "offset": 1, "limit": 1, "maxBytes": 1})
	if err != nil {
		return 0, 0, d.fail("read", err)
	}
	var w struct {
		TotalLines int64 `json:"totalLines"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return 0, 0, err
	}
	return w.TotalLines, el, nil
}

// appendLoop appends n bytes of log lines to path at every tick until stop.
func appendLoop(path string, n int, every time.Duration, stop <-chan struct{}) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var chunk strings.Builder
	for i := 0; chunk.Len() < n; i++ {
		fmt.Fprintf(&chunk, "2026-11-22T03:00:00Z INFO appended line %d of a growing log\n", i)
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return nil
		case <-tick.C:
			if _, err := io.WriteString(f, chunk.String()); err != nil {
				return err
			}
		}
	}
}

// above counts the durations over limit.
func above(ds []time.Duration, limit time.Duration) int {
	n := 0
	for _, d := range ds {
		if d > limit {
			n++
		}
	}
	return n
}

// pct returns the q-quantile of ds (nearest rank).
func pct(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"
)

// genLogMain writes a deterministic service log of about size-mb MiB:
// timestamped lines of random words from a few components, one line in
// -every at ERROR (an error-dense log, the case where the highlight detector
// finds the most and works the hardest), the others at INFO, DEBUG or WARN.
// -every 0 writes no ERROR lines. -style kv writes a key=value log instead:
// a level drawn from DEBUG, INFO, WARN and ERROR alike (half the lines are
// hits), a component, then random words and key=number pairs
// ("2026-11-22T07:00:00.049Z ERROR [auth] line=8 retrying opened
// read=403698 timeout=31"): every line of a shape of its own.
func genLogMain(args []string) error {
	fs := flag.NewFlagSet("genlog", flag.ExitOnError)
	sizeMB := fs.Int("size-mb", 1024, "size of the file in MiB")
	every := fs.Int("every", 6, "one line in this many is an ERROR (0: none)")
	out := fs.String("out", "", "file to write")
	style := fs.String("style", "", `"kv": random words and key=number pairs, levels alike (see above)`)
	_ = fs.Parse(args)
	if *out == "" || *sizeMB <= 0 || *every < 0 {
		return errors.New("genlog: -out, a positive -size-mb and -every >= 0 are required")
	}
	target := int64(*sizeMB) << 20
	rng := rand.New(rand.NewPCG(6, 1))
	words := logWords(rng, 4096)
	comps := []string{"http", "db", "cache", "auth", "queue", "billing", "search", "mailer"}
	errs := []string{"failed: connection refused", "failed: timeout after 30s", "cannot open file", "permission denied",
		"not found", "panic: nil pointer dereference", "exception in handler", "deadline exceeded"}

	tmp := *out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	t0 := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)
	var written, lines int64
	var line []byte
	for written < target {
		lines++
		line = t0.Add(time.Duration(lines)*time.Millisecond).AppendFormat(line[:0], "2006-01-02T15:04:05.000Z")
		if *style == "kv" {
			line = kvLine(rng, line, words, comps)
			w.Write(line)
			written += int64(len(line))
			continue
		}
		level := [...]string{"INFO", "INFO", "DEBUG", "WARN"}[rng.IntN(4)]
		if *every > 0 && lines%int64(*every) == 0 {
			level = "ERROR"
		}
		line = fmt.Appendf(line, " %-5s [%s] req=%d", level, comps[rng.IntN(len(comps))], rng.IntN(1e6))
		for n := 3 + rng.IntN(10); n > 0; n-- {
			line = append(append(line, ' '), words[rng.IntN(len(words))]...)
		}
		if level == "ERROR" {
			line = append(append(line, ' '), errs[rng.IntN(len(errs))]...)
		}
		line = append(line, '\n')
		w.Write(line)
		written += int64(len(line))
	}
	return finishGen(w, f, *out, written, lines)
}

// kvLine appends to line (which holds the time) the rest of a line of
// -style kv.
func kvLine(rng *rand.Rand, line []byte, words, comps []string) []byte {
	level := [...]string{"DEBUG", "INFO", "WARN", "ERROR"}[rng.IntN(4)]
	line = fmt.Appendf(line, " %s [%s]", level, comps[rng.IntN(len(comps))])
	for n := 3 + rng.IntN(10); n > 0; n-- {
		line = append(line, ' ')
		if rng.IntN(3) == 0 {
			line = fmt.Appendf(line, "%s=%d", words[rng.IntN(len(words))], rng.IntN(1<<uint(1+rng.IntN(20))))
		} else {
			line = append(line, words[rng.IntN(len(words))]...)
		}
	}
	return append(line, '\n')
}

// logWords are n random lowercase words of 2 to 10 letters.
func logWords(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := 2 + rng.IntN(9); k > 0; k-- {
			b.WriteByte(byte('a' + rng.IntN(26)))
		}
		out[i] = b.String()
	}
	return out
}

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestSearchHugeDirectory greps, finds and lists a directory of 100,000
// files (TOOLD_LONG=1; 2,100 in the quick run, over grep's limit of 2,000)
// with toold call (a daemon in the process) and checks the answers, and that
// the process's peak RSS stays under 64 MiB. With TOOLD_LONG=1 it runs toold
// built without -race, as shipped, whose peak RSS is what the bound is for
// (tests/adversarial and plainProcess share that binary). The quick run
// runs the -race binary (testenv.Toold), which needs no build of its own:
// its peak is the shipped binary's plus the race detector's shadow and
// tables (48.6 MiB to 17.8 MiB grepping 2,100 files), so the same bound on
// it is the stricter.
func TestSearchHugeDirectory(t *testing.T) {
	t.Parallel() // its peak RSS is its own process's
	n := testenv.Size(2100, 100000)
	dir := t.TempDir()
	hugeDir(t, dir, n)
	bin := binPath
	if testenv.Long() {
		var err error
		if bin, err = testenv.Build(false, ""); err != nil {
			t.Fatal(err)
		}
	}
	last := strconv.Itoa(n - 1)
	const maxRSS = 64 << 20
	var reqs []request
	var checks []func([]byte) bool
	for _, tt := range []struct {
		method, params string
		check          func(raw []byte) bool
	}{
		{"grep", `{"pattern":"needle ` + last + `\\b","path":"` + dir + `"}`, func(raw []byte) bool {
			var r grepResult
			return json.Unmarshal(raw, &r) == nil && r.TotalMatches == 1 && r.Files[0].Path == "f"+last+".txt"
		}},
		{"grep", `{"pattern":"needle","path":"` + dir + `","limit":2000}`, func(raw []byte) bool {
			var r grepResult
			return json.Unmarshal(raw, &r) == nil && ctStr(r.LimitReached) != "<nil>" && r.Files[0].Path == "f0.txt"
		}},
		{"find", `{"path":"` + dir + `","pattern":"*.txt"}`, func(raw []byte) bool {
			var r entriesResult
			return json.Unmarshal(raw, &r) == nil && r.Total == n && len(r.Entries) == 1000 && r.Entries[0] == "f0.txt"
		}},
		{"ls", `{"path":"` + dir + `"}`, func(raw []byte) bool {
			var r entriesResult
			return json.Unmarshal(raw, &r) == nil && r.Total == n && len(r.Entries) == 500
		}},
	} {
		// The quick run asks one daemon the four (its peak RSS bounds
		// each), three starts of the -race binary saved; TOOLD_LONG=1 runs
		// toold call for each, its peak its own.
		if !testenv.Long() {
			reqs = append(reqs, request{tt.method, tt.params})
			checks = append(checks, tt.check)
			continue
		}
		out, rss, measured := runPeakRSS(t, bin, "call", tt.method, tt.params)
		if !tt.check(out) {
			t.Errorf("%s %s: %.300s", tt.method, tt.params, out)
		}
		t.Logf("%s %s: peak RSS %.1f MiB", tt.method, tt.params, float64(rss)/(1<<20))
		if !measured {
			t.Logf("%s: not checked: no /usr/bin/time, and the test process's own peak is over 64 MiB", tt.method)
		}
		if measured && rss > maxRSS {
			t.Errorf("%s: peak RSS %d MiB, over %d MiB", tt.method, rss>>20, maxRSS>>20)
		}
	}
	if len(reqs) == 0 {
		return
	}
	outs, rss, measured := servePeakRSS(t, bin, reqs)
	for i, r := range reqs {
		if !checks[i](outs[i]) {
			t.Errorf("%s %s: %.300s", r.method, r.params, outs[i])
		}
	}
	t.Logf("one daemon, the %d requests: peak RSS %.1f MiB", len(reqs), float64(rss)/(1<<20))
	if !measured {
		t.Logf("not checked: no /usr/bin/time, and the test process's own peak is over 64 MiB")
	}
	if measured && rss > maxRSS {
		t.Errorf("peak RSS %d MiB, over %d MiB", rss>>20, maxRSS>>20)
	}
}

// request is a method and its params, as JSON.
type request struct{ method, params string }

// servePeakRSS runs bin as a daemon on stdio (a spool root of its own),
// asks it reqs one after another, and returns their results and its peak
// RSS in bytes, measured as runPeakRSS does.
func servePeakRSS(t *testing.T, bin string, reqs []request) (outs [][]byte, rss int64, measured bool) {
	t.Helper()
	cmd := peakCommand(bin, "--spool-root", filepath.Join(t.TempDir(), "spool"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := newPeer(t, in, out, false)
	for _, r := range reqs {
		var res json.RawMessage
		p.mustCall(r.method, json.RawMessage(r.params), &res)
		outs = append(outs, res)
	}
	p.mustCall("shutdown", nil, nil)
	p.notify("exit", nil)
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v\n%.2000s", bin, err, stderr.String())
	}
	rss, measured = peakOf(t, cmd, stderr.String())
	return outs, rss, measured
}

// runPeakRSS runs bin with args and returns its stdout and peak RSS in
// bytes. A child's rusage counts the test process's own peak RSS (Go starts
// it with vfork, and exec keeps the old memory's high-water mark), so it is
// run under GNU time, which forks it from a small process of its own. With
// no /usr/bin/time, the child's rusage is used while the test process's
// peak is under 64 MiB, and measured is false past it.
func runPeakRSS(t *testing.T, bin string, args ...string) (out []byte, rss int64, measured bool) {
	t.Helper()
	cmd := peakCommand(bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%.2000s", bin, args, err, stderr.String())
	}
	rss, measured = peakOf(t, cmd, stderr.String())
	return out, rss, measured
}

// peakMark starts the line in which GNU time reports the peak RSS in KiB.
const peakMark = "toold-test-maxrss-kib "

// peakCommand is bin with args run under GNU time, which reports its peak
// RSS (see runPeakRSS), or bin itself where there is no /usr/bin/time.
func peakCommand(bin string, args ...string) *exec.Cmd {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		return exec.Command(bin, args...)
	}
	return exec.Command("/usr/bin/time", append([]string{"-f", peakMark + "%M", bin}, args...)...)
}

// peakOf is the peak RSS in bytes of peakCommand's ended cmd, from GNU
// time's line in its stderr, or else from the child's rusage, measured
// only while the test process's own peak is under 64 MiB.
func peakOf(t *testing.T, cmd *exec.Cmd, stderr string) (rss int64, measured bool) {
	t.Helper()
	if cmd.Path == "/usr/bin/time" {
		_, kib, ok := strings.Cut(stderr, peakMark)
		n, err := strconv.ParseInt(strings.TrimSpace(kib), 10, 64)
		if !ok || err != nil {
			t.Fatalf("/usr/bin/time said %q", stderr)
		}
		return n << 10, true
	}
	var self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	rss = cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	return rss, self.Maxrss<<10 < 64<<20
}

// hugeDir writes n files f0.txt, f1.txt ... in dir, the last "file N\nneedle
// N\n" for its number N. With TOOLD_LONG=1 every file is so; in the quick
// run the others are hard links of one "file\nneedle\n": a new inode
// costs a millisecond of system time on ext4 (2 of the case's 2.8
// CPU-seconds), and what the case checks of them is how many names match,
// not what each holds.
func hugeDir(t *testing.T, dir string, n int) {
	t.Helper()
	name := func(i int) string { return filepath.Join(dir, "f"+strconv.Itoa(i)+".txt") }
	write := func(i int, body string) {
		if err := os.WriteFile(name(i), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		switch {
		case testenv.Long() || i == n-1:
			write(i, "file "+strconv.Itoa(i)+"\nneedle "+strconv.Itoa(i)+"\n")
		case i == 0:
			write(i, "file\nneedle\n")
		default:
			if err := os.Link(name(0), name(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

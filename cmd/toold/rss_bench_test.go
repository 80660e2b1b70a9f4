package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/protocol"
)

// rssKiB reads a process's VmRSS or VmHWM from /proc.
func rssKiB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	return 0
}

// BenchmarkBackgroundRSS runs 16 background processes that each print about
// 10 MB/s for 5 s in one daemon (built without -race, as shipped) and
// reports the daemon's peak RSS and the rate its spools took the output in.
func BenchmarkBackgroundRSS(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "toold")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	line := "2026-11-22T03:00:00Z INFO request served path=/api/v1/items status=200 bytes=5123 ms=12"
	command := fmt.Sprintf(`while :; do yes '%s' | head -c 1000000; sleep 0.1; done`, line)
	for b.Loop() {
		cmd := exec.Command(bin, "--spool-root", filepath.Join(b.TempDir(), "spool"))
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		p := newPeer(b, in, out, false)
		for range protocol.MaxProcesses {
			p.mustCall("exec", map[string]any{"command": command, "background": true}, nil)
		}
		var st0, st1 protocol.Stats
		p.mustCall("stats", nil, &st0)
		start := time.Now()
		var peak int64
		for time.Since(start) < 5*time.Second {
			peak = max(peak, rssKiB(cmd.Process.Pid, "VmRSS"))
			time.Sleep(100 * time.Millisecond)
		}
		p.mustCall("stats", nil, &st1)
		rate := float64(st1.SpoolBytes-st0.SpoolBytes) / time.Since(start).Seconds() / 1e6
		hwm := rssKiB(cmd.Process.Pid, "VmHWM")
		in.Close()
		cmd.Wait()
		b.ReportMetric(float64(peak)/1024, "MiB-RSS-peak")
		b.ReportMetric(float64(hwm)/1024, "MiB-VmHWM")
		b.ReportMetric(rate, "MB/s-spooled")
	}
}

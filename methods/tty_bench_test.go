package methods

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/protocol"
)

// BenchmarkExecTrueTTY is exec of `true` on pipes and on a terminal of its
// own (a pty opened, sized and closed; the command run as a process that
// exec answers for at its exit).
func BenchmarkExecTrueTTY(b *testing.B) {
	for _, tty := range []bool{false, true} {
		b.Run(map[bool]string{false: "pipes", true: "tty"}[tty], func(b *testing.B) {
			svc, s := newExecService(b, nil)
			p, _ := json.Marshal(map[string]any{"command": "true", "tty": tty})
			for b.Loop() {
				if _, err := svc.Exec(b.Context(), s, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPromptToReply times, for each exec, from the moment a command
// prints its prompt (bash's $EPOCHREALTIME just before `read -p`) to the
// reply that reports it waiting for input, and reports the median and the
// worst: -benchtime=100x for the 100 samples of the report. On a terminal,
// and on a background process's stdin pipe.
func BenchmarkPromptToReply(b *testing.B) {
	for _, tty := range []bool{true, false} {
		b.Run(map[bool]string{false: "pipe", true: "tty"}[tty], func(b *testing.B) {
			svc, s := newExecService(b, nil)
			params := map[string]any{"command": `printf 'T%s\n' "$EPOCHREALTIME"; read -p "x? " a`, "tty": tty}
			if !tty {
				params["yieldMs"] = 60000
			}
			p, _ := json.Marshal(params)
			var lat []time.Duration
			for b.Loop() {
				res, err := svc.Exec(b.Context(), s, p)
				now := time.Now()
				if err != nil {
					b.Fatal(err)
				}
				r := res.(*protocol.ExecResult)
				if r.WaitingForInput == nil {
					b.Fatalf("not waiting: %+v", r)
				}
				line, _, _ := strings.Cut(strings.TrimPrefix(r.Stdout.Head, "T"), "\n")
				sec, err := strconv.ParseFloat(line, 64)
				if err != nil {
					b.Fatalf("%q: %v", r.Stdout.Head, err)
				}
				lat = append(lat, now.Sub(time.Unix(0, int64(sec*1e9))))
				kill, _ := json.Marshal(map[string]any{"id": *r.Process, "signal": "SIGKILL"})
				if _, err := svc.ProcessKill(b.Context(), s, kill); err != nil {
					b.Fatal(err)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "worst-ms")
		})
	}
}

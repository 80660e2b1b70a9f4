package methods

import (
	"encoding/json"
	"testing"

	"github.com/toold/toold/protocol"
)

// BenchmarkProcessRead compares process/read of 1 MiB of new output (its
// whole span is read to count lines, and previewed) with a page of the same
// spool (one window of at most 256 KiB) and with exec of the same output.
func BenchmarkProcessRead(b *testing.B) {
	for _, out := range []struct{ name, command string }{
		// Random text: the worst for the detector's prefilter.
		{"base64", `head -c 1048576 /dev/urandom | base64 -w 99`},
		// A service's log: what a background process mostly prints.
		{"log", `seq -f '2026-11-22T10:00:00.000Z INFO http: GET /api/items/%g 200 in 3ms' 1 16000`},
	} {
		b.Run(out.name, func(b *testing.B) { benchProcessRead(b, out.command+"; sleep 300") })
	}
}

func benchProcessRead(b *testing.B, command string) {
	svc, s := newExecService(b, nil)
	r := call[protocol.ExecResult](b, svc.Exec, s, map[string]any{"command": command, "background": true})
	id := *r.Process
	call[protocol.ProcessOutput](b, svc.ProcessWait, s, map[string]any{"id": id, "until": map[string]any{"idleMs": 300}})
	o := call[protocol.ProcessOutput](b, svc.ProcessRead, s, map[string]any{"id": id, "since": "0:0"})
	if o.Stdout.TotalBytes < 1<<20 || o.Stdout.Spool == nil {
		b.Fatalf("read %d bytes, spool %v", o.Stdout.TotalBytes, o.Stdout.Spool)
	}
	spool := o.Stdout.Spool.ID
	bench := func(name string, m Method, params any) {
		p, _ := json.Marshal(params)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				res, err := m(b.Context(), s, p)
				if err != nil {
					b.Fatal(err)
				}
				out, _ := json.Marshal(res)
				b.SetBytes(int64(len(out)))
			}
		})
	}
	bench("process-read-1MiB", svc.ProcessRead, map[string]any{"id": id, "since": "0:0"})
	bench("page-256KiB", svc.Page, map[string]any{"spool": spool, "offset": 1, "maxBytes": protocol.MaxWindowBytes})
	bench("page-51KiB", svc.Page, map[string]any{"spool": spool, "offset": 1})
}

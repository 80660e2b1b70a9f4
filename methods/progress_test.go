package methods

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// progressCtx returns a context whose request asked for progress, sent
// every interval to the returned recorder.
func progressCtx(interval time.Duration) (context.Context, *recorder) {
	rec := &recorder{}
	p := rpc.NewProgress(json.RawMessage(`"tok"`), interval, func(tok json.RawMessage, v any) error {
		b, _ := json.Marshal(v)
		rec.mu.Lock()
		rec.values = append(rec.values, b)
		rec.mu.Unlock()
		return nil
	})
	rec.p = p
	return rpc.WithProgress(context.Background(), p), rec
}

type recorder struct {
	p      *rpc.Progress
	mu     sync.Mutex
	values []json.RawMessage
}

// done closes the progress, as the server does before the reply, and
// returns what was sent.
func (r *recorder) done() []json.RawMessage {
	r.p.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.values
}

func TestExecProgress(t *testing.T) {
	t.Parallel() // waits on a command of its own
	svc, s := newExecService(t, nil)
	ctx, rec := progressCtx(100 * time.Millisecond)
	params, _ := json.Marshal(map[string]any{"command": `for i in 1 2 3 4 5 6 7 8; do echo line$i; echo warn$i >&2; sleep 0.1; done`})
	if _, err := svc.Exec(ctx, s, params); err != nil {
		t.Fatal(err)
	}
	values := rec.done()
	if len(values) < 5 {
		t.Fatalf("%d notifications, want at least 5: %s", len(values), values)
	}
	var last protocol.ExecProgress
	sawLine := false
	for _, v := range values {
		var p protocol.ExecProgress
		if err := json.Unmarshal(v, &p); err != nil {
			t.Fatal(err)
		}
		if p.Kind != "exec" || p.ElapsedMs < last.ElapsedMs || p.Stdout.Lines < last.Stdout.Lines || p.Stderr.Bytes < last.Stderr.Bytes {
			t.Fatalf("progress %s after %+v", v, last)
		}
		if p.Stdout.Bytes != 6*p.Stdout.Lines && p.Stdout.Lines > 0 {
			t.Fatalf("progress %s: bytes do not match lines", v)
		}
		sawLine = sawLine || strings.HasPrefix(p.LastLine, "line") || strings.HasPrefix(p.LastLine, "warn")
		last = p
	}
	if !sawLine || last.Stdout.Lines < 4 {
		t.Fatalf("progress never showed the output: %s", values)
	}

	// No token, no notifications (and no observer).
	if _, err := svc.Exec(context.Background(), s, params); err != nil {
		t.Fatal(err)
	}
}

func TestIndexProgress(t *testing.T) {
	// The one-core build: it reports every block over some 30 ms, where
	// the parallel one may end before the reporter's first tick on a
	// loaded machine (fileindex's TestParallelProgress checks its reports).
	old := fileindex.ParallelMin
	fileindex.ParallelMin = 1 << 62
	t.Cleanup(func() { fileindex.ParallelMin = old })
	size := 48 << 20
	// Written a MB at a time from one block: the 48 MiB made in memory (twice,
	// a string then its bytes) cost, under -race, some 120,000 page faults
	// for them and the race detector's shadow of them, most of the test's
	// 0.85 CPU-seconds.
	block := []byte(strings.Repeat(strings.Repeat("z", 99)+"\n", 10000))
	// The build takes some 10 ms and progress is sent 1 ms after the first
	// report, from a goroutine of its own: on a loaded machine that
	// goroutine may not run before the reply. A fresh daemon and file are
	// tried again (the build from scratch each time) before failing.
	var values []json.RawMessage
	for try := 0; try < 5 && len(values) == 0; try++ {
		svc, s := newExecService(t, nil)
		path := filepath.Join(t.TempDir(), "big")
		writeRepeated(t, path, block, size/100*100)
		ctx, rec := progressCtx(time.Millisecond)
		params, _ := json.Marshal(map[string]any{"path": path, "offset": 400000, "limit": 1})
		if _, err := svc.Read(ctx, s, params); err != nil {
			t.Fatal(err)
		}
		values = rec.done()
	}
	if len(values) == 0 {
		t.Fatal("no index progress in 5 builds")
	}
	for _, v := range values {
		var p protocol.IndexProgress
		json.Unmarshal(v, &p)
		if p.Kind != "index" || p.BytesTotal != int64(size/100*100) || p.BytesDone > p.BytesTotal {
			t.Fatalf("progress %s", v)
		}
	}
}

// writeRepeated writes a file of n bytes at path: block again and again.
func writeRepeated(t *testing.T, path string, block []byte, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for ; n > 0 && err == nil; n -= len(block) {
		_, err = f.Write(block[:min(n, len(block))])
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

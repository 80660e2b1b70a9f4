package highlight

import (
	"bytes"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/toold/toold/internal/corpus"
	"github.com/toold/toold/internal/testenv"
)

// TestCorpusJSONLines: the corpus's JSON-lines log (corpus.JSONLinesOf)
// is what log/slog's JSON handler writes of its records; the corpus writes
// it directly, at a tenth of the cost. The quick run checks the size the
// quick run's tests load (the handler takes seconds under -race for the
// 60,000 records TOOLD_LONG=1 checks). It lives here, the package that
// uses the corpus most: a test package of its own would add a build and a
// link to the quick run.
func TestCorpusJSONLines(t *testing.T) {
	n := testenv.Size(corpus.QuickJSONLines, 60000)
	got, want := corpus.JSONLinesOf(n), slogLines(n, n*41337/60000)
	if !bytes.Equal(got, want) {
		g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range min(len(g), len(w)) {
			if !bytes.Equal(g[i], w[i]) {
				t.Fatalf("record %d:\n got %s\nwant %s", i, g[i], w[i])
			}
		}
		t.Fatalf("%d records, want %d", len(g), len(w))
	}
}

// slogLines is the corpus's JSON-lines log of n records (the ERROR one at
// errAt) as log/slog's JSON handler writes it.
func slogLines(n, errAt int) []byte {
	var buf bytes.Buffer
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				a.Value = slog.TimeValue(t0)
			}
			return a
		}}))
	r := rand.New(rand.NewPCG(7, 60000))
	paths := []string{"/api/items", "/api/users", "/healthz", "/api/orders", "/metrics"}
	for i := range n {
		t0 = t0.Add(time.Duration(r.IntN(90)) * time.Millisecond)
		switch {
		case i == errAt:
			log.Error("payment provider refused the charge", "order", "ord_8812", "status", 502, "err", "upstream connect error or disconnect/reset before headers")
		case i%997 == 0:
			log.Debug("pool stats", "open", r.IntN(50), "idle", r.IntN(20))
		default:
			log.Info("request", "id", fmt.Sprintf("%016x", r.Uint64()), "path", paths[r.IntN(len(paths))],
				"status", 200, "ms", r.IntN(300), "bytes", r.IntN(90000))
		}
	}
	return buf.Bytes()
}

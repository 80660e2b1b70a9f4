#!/usr/bin/env bash
# A Go service logging with log/slog's text handler (logfmt): 5,000 records at
# INFO and DEBUG, one at ERROR (record 3,217), one at WARN.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
go mod init example.com/svc >/dev/null 2>&1
cat > main.go <<'GO'
package main

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"time"
)

func main() {
	t0 := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				a.Value = slog.TimeValue(t0)
			}
			return a
		}}))
	r := rand.New(rand.NewPCG(5, 5000))
	paths := []string{"/api/cart", "/api/users", "/healthz", "/api/checkout", "/static/app.js"}
	for i := 0; i < 5000; i++ {
		t0 = t0.Add(time.Duration(r.IntN(80)) * time.Millisecond)
		switch {
		case i == 3217:
			log.Error("checkout failed", "order", "ord_55120", "err", "pq: duplicate key value violates unique constraint \"orders_pkey\"")
		case i == 1200:
			log.Warn("slow query", "ms", 1840, "query", "SELECT * FROM carts WHERE user_id=$1")
		case i%250 == 0:
			log.Debug("pool", "open", r.IntN(30), "idle", r.IntN(10))
		default:
			log.Info("request", "id", fmt.Sprintf("%08x", r.Uint32()), "path", paths[r.IntN(len(paths))], "status", 200, "ms", r.IntN(200))
		}
	}
}
GO
go run . > "$out" 2>&1 || true

#!/usr/bin/env bash
# A Go service logs 3,000 request lines (log/slog text), then panics on a nil
# map: the panic and its goroutine trace are at the end.
set -eu
out="$(cd "$(dirname "$0")" && pwd)/output.txt"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
go mod init example.com/svc >/dev/null 2>&1
cat > main.go <<'GO'
package main

import (
	"log/slog"
	"os"
	"time"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				a.Value = slog.TimeValue(time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC))
			}
			return a
		}}))
	for i := 0; i < 3000; i++ {
		log.Info("handled request", "id", i, "path", "/api/items", "status", 200, "ms", i%37)
	}
	var cache map[string]int
	cache["hits"]++
}
GO
go build -o svc . && ./svc > "$out" 2>&1 || true
sed -i "s#$tmp#/tmp/svc#g" "$out"

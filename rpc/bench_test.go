package rpc

import (
	"context"
	"log/slog"
	"testing"
)

// BenchmarkCall measures one request's round trip through Client and Server
// over a unix socket pair.
func BenchmarkCall(b *testing.B) {
	for _, framing := range framings {
		b.Run(framing.String(), func(b *testing.B) {
			h := newTestHandler()
			srv := &Server{Handler: h.Handle, Logger: slog.New(slog.DiscardHandler)}
			x, y := socketPair(b)
			done := make(chan error, 1)
			go func() { done <- srv.ServeConn(context.Background(), y) }()
			c := NewClient(context.Background(), x, framing)
			params := map[string]any{"path": "/tmp/x", "offset": 1, "limit": 2000}
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				if err := c.Call(ctx, "echo", params, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			c.Close()
			<-done
		})
	}
}

package rpc

import (
	"context"
	"log/slog"
	"time"
)

// Trace wraps h so that every request and notification it answers is
// logged at info level when its reply is ready: method, id, duration and,
// for a failure, the error code the reply carries. It is --rpc.trace.
func Trace(h Handler, log *slog.Logger) Handler {
	return func(ctx context.Context, req *Request) (any, error) {
		start := time.Now()
		result, err := h(ctx, req)
		attrs := []any{"method", req.Method, "durationMs", float64(time.Since(start).Microseconds()) / 1000}
		if req.Notif {
			attrs = append(attrs, "notification", true)
		} else {
			attrs = append(attrs, "id", req.ID.String())
		}
		if err != nil {
			we := wireError(err, log)
			attrs = append(attrs, "code", we.Code, "err", we.Message)
		}
		log.Info("rpc", attrs...)
		return result, err
	}
}

// Package rpc owns toold's JSON-RPC 2.0 layer and nothing else: framing
// (Content-Length headers or newline-delimited JSON, detected from the first
// bytes; framing.go), dispatch of requests to one Handler (server.go),
// decoding of params and the fields a params type does not know
// (unknown.go), the error codes of JSON-RPC, cancellation ($/cancelRequest,
// client gone, server shut down), notifications (Notify), a request's
// $/progress (progress.go), the calling side (Client) and --rpc.trace's log
// (trace.go).
//
// It is built on github.com/sourcegraph/jsonrpc2 with an ObjectStream of its
// own underneath, because that library closes the connection on any read
// error, puts no cap on message size and has no $/cancelRequest. The stream
// here answers bad input itself (-32700, -32600) and reads on, so that no
// input, however bad, ends a connection; only the end of the input, a failed
// write or the caller's context does.
//
// The package imports none of toold's own packages: lifecycle and methods
// import it.
package rpc

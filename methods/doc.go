// Package methods implements the protocol's working methods — read,
// readBytes, page and exec — for one session: it decodes and checks their
// params (errors name the field), resolves paths against the session's cwd
// and roots, asks fileindex, exec and spool for the bytes, cuts them with
// truncate, and shapes the results the contract describes.
//
// It knows nothing of connections or framing: lifecycle owns sessions and
// calls in here with each request's params.
package methods

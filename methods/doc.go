// Package methods implements the protocol's working methods — read,
// readBytes, page and exec — for one session: it decodes and checks their
// params (errors name the field), resolves paths against the session's cwd
// and roots, asks fileindex, exec and spool for the bytes, cuts them with
// truncate, and shapes the results the contract describes.
//
// Paths are checked where they are opened: resolve follows every symlink,
// dangling ones too, so a path that leads outside the roots is refused
// whether or not its target exists, and the file is then opened through
// os.Root beneath the root that holds it, so a directory swapped for a
// symlink in between cannot lead out. A window whose file changes under it
// is read again once, else answered -32001 "changed while read".
//
// It knows nothing of connections or framing: lifecycle owns sessions and
// calls in here with each request's params.
package methods

// Package methods implements the protocol's working methods for one session,
// the twelve Service.Methods registers: read, readBytes and page (window.go;
// outline.go for read's and page's outline; windowfit.go fits a window to
// its rendered size and answers a large file's read with its outline and
// first lines), exec (exec.go; tty.go for a
// command's terminal), process/read, process/wait, process/write,
// process/kill and process/list (process.go, over process.Table), and grep,
// find and ls (search.go, over search and the search index). For each it
// decodes and checks the params (errors name the field; params.go, and
// limits.go for initialize's limits), resolves paths against the session's
// cwd and roots (paths.go), asks fileindex, exec, process, search, index and
// spool for the bytes, cuts them with truncate, and shapes the results the
// contract describes, with notice's lines.
//
// Paths are checked where they are opened: resolve follows every symlink,
// dangling ones too, so a path that leads outside the roots is refused
// whether or not its target exists, and the file is then opened through
// os.Root beneath the root that holds it, so a directory swapped for a
// symlink in between cannot lead out. A window whose file changes under it
// is read again once, else answered -32001 "changed while read".
//
// Service holds the one piece of state the daemon's sessions share here:
// the record of what they read, for ifChanged, a seen.Store (package seen
// keeps it, bounds it and compares a window with it); ifchanged.go hashes
// a window's lines for it and says its verdict in the window's notice.
// sandbox.go gives a session's sandbox policy
// its TMPDIR and names what the sandbox refused in a command's output;
// progress.go reports a command's progress, or a line index's build;
// render.go fits an exec's, a process's, a grep's, a find's or an ls'
// result to the rendered size its params ask for (render.maxBytes, toold
// mcp's budget), measured on notice's rendering, giving up highlight groups
// in the preview's rank order; windowfit.go does it for a window, before
// the window is recorded as seen, so that a session saw what it was shown.
//
// It knows nothing of connections or framing: lifecycle owns sessions and
// calls in here with each request's params.
package methods

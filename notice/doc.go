// Package notice owns every line toold writes for a model to read: the
// notice of a window (what it left out and the call that reads on), of an
// exec (how the command ended, what each stream left out and where it is
// kept), of a command become a background process and of one that waits
// for input, of what a sandbox refused, of an outline, of a grep, find or
// ls, of a binary or image file and of a spool evicted, and the lines
// toold mcp renders around a result, and its rendering of an exec's or a
// process's streams (stream.go), which the daemon measures to fit a result
// to a rendered size. Each is a pure function over facts: no
// I/O, no state. What the reader can do is one of those facts (SpoolsGone:
// toold call's spools end with its session; ToolNames: toold mcp's model
// calls process/read as the tool process_read, Method), so that no caller
// edits a notice as a string after it is written.
//
// # Why one place
//
// These messages are an interface as much as the JSON is: a model acts on
// "Use offset=2001 to continue". Written in truncate/, methods/ and mcp/ they
// drifted apart in wording and in the calls they name; here one table test
// (notice_test.go) shows every message toold can say, side by side.
//
// It imports only protocol, for the names of fields and methods it quotes,
// and truncate, for the facts of a clipped line (truncate.Clip).
package notice

// Package truncate holds the pure rules that decide what part of some bytes a
// model is shown: windows of whole lines under line and byte limits and byte
// slices of a line (window.go), lines clipped at a character count on a
// character boundary, the preview clean-up (ANSI escapes, \r redraws) and
// binary detection (line.go), head/tail previews of command output with the
// groups of lines from the middle that highlight found (preview.go,
// highlights.go), and LineStream (stream.go), which cuts a stream into lines
// as it passes, in bounded memory, remembering the long lines a capture
// cannot keep whole. It reports facts (what was omitted, where a clipped
// line goes on: Clip); the lines that tell a model how to go on are
// notice's.
//
// Nothing here does I/O: callers read the bytes and pass them in, so every rule
// can be tested and fuzzed on its own.
package truncate

// Package truncate holds the pure rules that decide what part of some bytes a
// model is shown: windows of whole lines under line and byte limits, lines
// clipped at a character count on a character boundary, head/tail previews of
// command output, the preview clean-up (ANSI escapes, \r redraws), binary
// detection, and the one-line notices that tell a model how to go on.
//
// Nothing here does I/O: callers read the bytes and pass them in, so every rule
// can be tested and fuzzed on its own.
package truncate

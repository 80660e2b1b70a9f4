// Package outline owns the outlines of files: the entries (line, endLine,
// depth, kind, name) that tell a model which window of a large file to read.
// It knows the formats; its entries are the wire's (protocol.OutlineEntry),
// and methods/ bounds an Outline by maxBytes with Fit.
//
// # Formats
//
//   - go: go/ast. Functions, methods named with their receiver as
//     "(*conn).serve", types, const and var blocks, with the exact line
//     ranges the parser gives (Pos to End).
//   - ctags: any other code, through Universal Ctags (`ctags --options=NONE
//     --_interactive=sandbox --output-format=json --fields=+ne`) when it is
//     on PATH; without it, or when it finds no tags, indent. Never a parser
//     per language of ours. ctags is handed the file the caller opened, on
//     its stdin, never a path (which a swap could lead elsewhere), from /,
//     with no option file nor environment of ours.
//   - markdown, json, yaml, csv, tsv, log, indent: streaming scanners fed the
//     file's bytes in order (Scanner). Their memory is bounded whatever the
//     file's size: names are clipped, at most Options.MaxEntries entries are
//     held (TotalEntries counts them all), and runs of similar things (array
//     elements, CSV rows, log lines) are held as at most a few dozen chunks
//     whose size doubles as the file goes on.
//
// # One pass
//
// A streaming scanner is a writer: fileindex feeds it the chunks of the pass
// that builds the line index when the index is built for the same request
// (fileindex.File.IndexFeed), so that a cold 1 GiB log is read once. When
// the index was already cached, the caller streams the file through the
// scanner itself: still one pass.
package outline

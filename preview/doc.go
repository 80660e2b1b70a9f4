// Package preview makes the preview of a command's output from what the
// highlight detector found in it, for exec's captures and the process
// methods' reads alike: it is its own package so that process and methods
// borrow no part of exec to render what a read of a spool shows.
//
// A LineScan is the clean-up (truncate.LineStream) and the highlight
// detector of one stream, fed its bytes in order: exec's capture runs one
// on its scanner's goroutine as the output passes; ScanRange runs one over
// bytes read back from a spool, a block (ScanBlock) at a time, in bounded
// memory. KeepBytes is how much of each end of a stream a preview is cut
// from.
//
// Found renders the preview: the groups the detector found, in
// highlight.Rank's order, each with its reason and a verdict's evidence
// read back by lines; the groups of reason "rare" given at most RareBytes
// (protocol.RareBytes, held equal by a test: preview does not import
// protocol) of it; and, when groups are left out, the kinds of the failure
// lines in at most a quarter of the budget.
//
// It holds no processes, files or goroutines of its own beyond a
// LineScan's detector, which Finish ends; it imports highlight and
// truncate only.
package preview

// Package seen is the daemon's record of what its sessions read, for
// read's and page's ifChanged: the hash of each line a session was shown
// (8 bytes a line, never the text; HashLines), per session and file, in
// spans of consecutive lines, an LRU over all sessions bounded by MaxBytes
// (one file at most a quarter of it, the lines farthest from the last read
// going first); the comparison of a window read again with what was seen,
// by content as an anchored diff does (align.go), so lines inserted above
// a window do not make every line of it changed; and the memory budget of
// the comparisons under way at once (Store.Work).
//
// It is a package of its own because it holds state shared by every
// session, with its own bounds and its own algorithm, none of which the
// methods need to see: methods hashes a window's lines and says what the
// Result means in a notice. It imports nothing of ours.
package seen

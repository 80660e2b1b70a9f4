// Package search is the engine of grep, find and ls: it walks a directory
// tree in parallel yet answers in a stable order (depth first, entries
// sorted by name), honours .gitignore and .ignore files (nested, with
// negation; .gitignore only inside a git work tree, as ripgrep; each file
// compiled once into sets whose cost per path does not grow with its
// patterns), skips VCS directories, binary files and files over a size cap,
// and never follows a symlink out of the tree: every directory and file is
// opened with openat, one name with O_NOFOLLOW beneath its open parent (as
// os.Root does, at fewer system calls per file), symlinked directories are
// not followed (so loops cannot form), and a symlinked file is opened
// through the tree's os.Root, which refuses one that leads out. The
// searched directory itself is checked once open (Allow, with its real
// path read back from the descriptor). Ignore files above the tree apply
// when the caller names where they start.
//
// Linux, macOS and FreeBSD walk alike: directories read with
// unix.ReadDirent (getdents64, getdirentries, readdir_r) into one parser of
// their records, typed from d_type. What is Linux's alone sits behind build
// tags with a portable path beside it, which -tags toold_portable forces on
// Linux so that its tests run there: a file listed by the index
// (GrepListing) is opened by its whole path in one openat2 on Linux, one
// component at a time with O_NOFOLLOW elsewhere (beneath_other.go); a
// walked file's openat is a raw system call on Linux, unix.Openat
// elsewhere; the real path of the searched directory is read from
// /proc/self/fd on Linux, F_GETPATH on macOS, and not at all on FreeBSD
// (fdpath_*.go).
//
// grep matches RE2 patterns (Go's regexp, so no pattern takes exponential
// time) line by line over a file, a tree or any io.ReaderAt (an exec
// spool), with context lines, a match limit, a byte budget and lines
// clipped on a character boundary. It is fast because most lines are never
// looked at: a literal that every match must contain is searched over
// whole buffers before any line is split (for a regexp, of the literals
// every match must contain, found in its syntax tree, the one with the
// rarest byte), by that rarest byte with bytes.IndexByte and the next
// rarest checked before the whole, as ripgrep's memchr does (byte
// frequencies of source code in freq.go); a small file costs three system
// calls (openat, one pread into a buffer its worker reuses, kept from one
// grep to the next, close: no stat, no read that returns 0) and no
// allocation, lines are counted with bytes.Count only up to the matches,
// and a file is judged binary only at its first match, eight bytes at a
// time. The API is grep.go's; the walk (or an index's listing) sends a
// directory's files in batches (batch.go: a batch of targets) to
// GOMAXPROCS workers (worker.go), which share a batch once they meet a
// large file in it, and the collector merges their outcomes in walk order
// under the limits (collect.go).
// A line longer than a scan's buffer is held in a buffer from one budget of
// the process (scan.go), so that many greps of long lines at once stay
// bounded; a longer one still is searched in pieces.
//
// It returns its own plain types and holds no policy: defaults, caps, wire
// types and the notices a model reads belong to the callers (methods,
// protocol, truncate). It imports truncate for the line rules read uses
// too: clipping, invalid UTF-8, what counts as binary; and
// internal/beneath for whether a walk starts beneath the dir whose ignore
// files apply.
package search

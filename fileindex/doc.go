// Package fileindex owns the per-file sparse line index that read, readBytes
// and page use to turn line numbers into byte offsets, the LRU cache that keeps
// those indexes between requests, and the fsnotify watcher that invalidates
// them.
//
// # The index
//
// An index stores, every Spacing bytes (64 KiB by default), the number of '\n'
// bytes before that offset, plus the file's size, its total '\n' count and
// whether its last byte is '\n'. A 1 GiB file costs some 16K checkpoints
// (128 KiB) whatever its line count, and finding where a line starts costs a
// binary search and a scan of at most Spacing bytes: paging deep into a huge
// file costs the window, not the file. The index is built by one pass of large
// preads (a pooled buffer, not one per file) counting newlines with
// bytes.Count. A file of ParallelMin (8 MiB) or more is counted on up to
// GOMAXPROCS (at most 4) goroutines, each a range of whole checkpoint blocks
// with a buffer of its own; the blocks' counts are then summed into the
// checkpoints, and the tail block read again for its CRC (parallel.go).
//
// # Feeding an outline
//
// A build under WithFeed hands every block it reads, in order, to a writer
// (an outline scanner) on a goroutine of its own while it reads and counts
// the next (three buffers going round): the outline and the index share one
// pass of the file and two cores. Such a build is not split in ranges, as
// the scanner needs the bytes in order. Only a build from scratch feeds; an
// index from the cache or extended does not (Feed.Fed says which), and the
// caller then reads the file itself.
//
// # Opening and indexing
//
// [Cache.Open] only opens the file and fstats the open descriptor, so a caller
// can sniff a binary file without indexing it. [File.Index] builds or
// validates the index and must be called before [File.Lines],
// [File.LineStart] and [File.LineAt] (they call it with
// context.Background() as a fallback). Cancelling Index's context aborts a
// long build.
//
// # Keys
//
// Entries are keyed by device and inode, so that the hard links of a file
// share one index; each entry remembers the names it was opened by, which
// the watcher's events name (where a platform has no inode numbers, the
// path is the key).
//
// # Staleness
//
// Every index is checked against the fstat of the handle that wants it:
// device, inode, size, mtime and ctime. A file that only grew (same inode,
// larger, and the bytes from its last checkpoint to its old size unchanged,
// checked with a CRC-32C kept at build time) has its index extended from that
// checkpoint instead of rebuilt, so paging through a growing log stays cheap.
// Any other difference rebuilds it.
//
// The watcher watches the parent directory of every cached file (editors save
// by rename), refcounted, and drains its events in one goroutine: Create,
// Remove and Rename of a name drop its entry; Write marks it suspect so the
// next Index rechecks it even when size and times look unchanged; an overflow
// or any watcher error drops every entry. When inotify cannot be used the
// stat checks alone keep the indexes right. On macOS and FreeBSD fsnotify
// uses kqueue, where a watched directory holds a descriptor for itself and
// one for each of its entries: a directory whose watch does not fit the
// process's budget for watches (internal/watchcost: a quarter of
// RLIMIT_NOFILE, shared with index/) is not watched, and the stat checks
// alone keep its files' indexes right.
//
// A Write event after a read has seen the file is mostly the append that
// read already saw, arriving late, and an fstat inside an append sees its
// times move before its size. Rebuilding from scratch for either stalled a
// reader polling a growing log (150 ms a read on 1 GiB). So the same size
// and mtime is checked by the tail CRC, as an extension is; the same size
// with a newer mtime is extended only if the size grows within a few
// milliseconds (the append in flight), and otherwise is a rewrite in place,
// which may have moved lines anywhere: rebuilt.
//
// # Sizes that lie
//
// A file on a pseudo file system (procfs, sysfs and their kin), or whose stat
// size is 0 but which has content, is read to EOF at Open (at most
// MaxSnapshotBytes) and indexed from that snapshot, outside the cache. A
// short read inside the size a File was opened with is ErrChanged.
//
// # Accounting
//
// The LRU is bounded both by entries (Options.MaxEntries) and by the memory
// of all indexes (Options.MaxIndexBytes). In [Stats], a hit is an Index call
// that reused a cached index, extended or not (Extends counts those extended);
// a miss is one that built an index from scratch; invalidations count entries
// dropped by the watcher, by [Cache.Invalidate] or by a flush, and indexes
// rebuilt because they were stale. LRU evictions are counted apart.
package fileindex

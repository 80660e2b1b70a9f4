// Package index keeps, for each directory tree grepped, a trigram index of
// its text files (which files hold each three-byte sequence, ASCII folded
// to lower case; no positions), so that a repeated grep searches only the
// files that can match. It owns the index's build, its file on disk, the
// query a pattern makes and the fsnotify watch that keeps it fresh; the
// grep itself stays search's: the index only says which files (and, of a
// file over 16 KiB, which blocks of about 16 KiB ending at a newline) may
// match, so a reply is byte for byte what a scan gives (same order, counts
// and limits). Of an unchanged tree the grep visits only the candidates,
// in the listing's walk order (search.GrepListing, search.Parts: a block's
// context lines read from around it); of a changed one it walks, passing
// over the files ruled out (search.GrepOptions.Candidate). The pick is bit
// sets over the listing, made at load (files the index does not answer
// for, symlinks standing for their targets) and as events come (files
// changed), and is kept per query until the tree changes (pick.go).
//
// Design, after Russ Cox's codesearch (index/regexp.go, index/read.go) and
// zoekt's design notes:
//
//   - The query comes from the pattern's RE2 syntax tree (regexp/syntax),
//     as the scanner parses it: exact string sets crossed through concats
//     and alternations while small, turned into an AND/OR of trigrams;
//     anything unbounded (., \w+, x*) asks for nothing. Case-insensitive
//     patterns take every fold of a rune (k: k and the Kelvin sign); U+FFFD
//     asks for nothing (it matches an invalid byte). No trigram: grep scans.
//   - Posting lists are roaring bitmaps (github.com/RoaringBitmap/roaring/v2):
//     compressed, ANDed and ORed without decoding, and read in place from
//     the mapped file.
//   - The build runs in the background after the first grep of a tree, on
//     every core at nice 19 (per thread, on Linux; macOS and FreeBSD have
//     no per-thread nice, and build at the daemon's), in segments of a bounded number of
//     postings merged at the end, so its anonymous memory stays small
//     whatever the tree. Binary files (a NUL in the first 8 KiB), files over
//     64 MiB and unreadable ones are not indexed: always candidates. The
//     others are judged as grep judges them (search.IsBinary): a text file
//     unchanged since is not judged again (search.GrepOptions.Text).
//   - Freshness: every directory that holds an indexed file (and its
//     ancestors) is watched before any file is read; a file written,
//     created, removed or renamed is a candidate (a name created, removed or
//     renamed: everything beneath it) until the next build, which comes once
//     too many changed. A file the index does not know is a candidate. When
//     the watcher overflows the index is not trusted (grep scans, stats
//     says why) until rebuilt; past the watch limit the tree scans. On
//     macOS and FreeBSD fsnotify uses kqueue, which holds a descriptor per
//     watched directory and per entry in it (the kernel's tree would take
//     80,000): each watch is charged so against one budget of the process
//     (internal/watchcost, a quarter of RLIMIT_NOFILE), and a tree whose
//     watches do not fit scans, as past inotify's limit (watchfd.go).
//   - The file lives in $XDG_CACHE_HOME/toold/index (0700; files 0600;
//     both directories checked as the spool root is, spool.PrivateDir: ours,
//     no symlink, no one else may write),
//     mapped read-only, CRC-32C checked on open: a corrupt or truncated one
//     is removed and rebuilt. After a restart it is reused, each file's size
//     and mtime compared (those that differ are candidates). All files
//     together stay under a quota, the least recently used tree's removed.
package index

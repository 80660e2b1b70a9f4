// Package watchcost bounds what toold's fsnotify watches hold. On Linux
// fsnotify uses inotify: one descriptor for every watch, and the kernel's
// own limit (max_user_watches, ENOSPC), which index and fileindex meet
// already. On macOS and FreeBSD it uses kqueue, which holds a descriptor
// for every directory watched and for every entry in it (so that a write
// to a file is seen): the Linux kernel's tree, 80,000 files, would hold
// 80,000 descriptors, past what a process may open. There every watch is
// charged its cost (Of: 1 + the directory's entries) against one budget
// for the process (Take, Give): a quarter of the descriptors it may open,
// RLIMIT_NOFILE's soft limit as Go raised it at start. A watch that does
// not fit is not made: index then leaves the tree scanning (as past
// inotify's limit), fileindex relies on its stat checks. -tags
// toold_portable charges so on Linux too, so that the bound's tests run
// there.
package watchcost

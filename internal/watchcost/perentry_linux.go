//go:build !toold_portable

package watchcost

// perEntry: inotify watches a directory's entries with the directory.
const perEntry = false

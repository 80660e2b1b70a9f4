package spool

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// userTempDirIn finds the temporary directory macOS makes for user uid,
// as base/<bucket>/<id>/T (base is /var/folders; <id> encodes the user's
// UUID and uid, so it never changes): the one such directory that is
// ours, 0700, not a symlink. That is $TMPDIR as launchd gives it, found
// without TMPDIR, which a client may strip or change (a sandbox gives its
// own): every client of one user then meets the same daemon. Only root
// can make entries in base's buckets. "" when there is not exactly one.
func userTempDirIn(base string, uid int) string {
	cands, _ := filepath.Glob(filepath.Join(base, "*", "*", "T"))
	slices.Sort(cands)
	found := ""
	for _, c := range cands {
		fi, err := os.Lstat(c)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		if found != "" {
			return "" // two: which one launchd gave us is not known
		}
		found = c
	}
	return found
}

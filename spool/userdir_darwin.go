package spool

import "os"

// userRuntimeDir is where toold's directory goes before XDG_RUNTIME_DIR
// and TMPDIR are asked: on macOS the user's temporary directory, found
// under /var/folders whatever the environment says.
func userRuntimeDir() string { return userTempDirIn("/var/folders", os.Geteuid()) }

//go:build !darwin

package spool

// userRuntimeDir: none here beyond XDG_RUNTIME_DIR and TMPDIR.
func userRuntimeDir() string { return "" }

//go:build linux && !amd64 && !arm64

package sandbox

// No filter for this architecture: seccompAvailable is false, and the
// plan says what that leaves unenforced.
var native, compat seccompArch

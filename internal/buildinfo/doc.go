// Package buildinfo owns what a toold binary knows about itself: its module
// version and VCS revision (from runtime/debug's build info, which go build
// and go install stamp), and the name of the shared daemon's socket for this
// build. The socket is named per build, as gopls names its socket per
// binary, so that a new toold never talks to a daemon of an older one.
package buildinfo

//go:build !toold_portable

package testenv

// Portable reports whether the test binary was built with -tags
// toold_portable (the portable paths forced on Linux); Toold builds the
// daemon so too.
const Portable = false

// Package layout holds DEVELOPERS.md's layout to the code: its test reads
// the guide's imports block (a line per package, "pkg → what it imports of
// ours") and its package list, and compares them with what `go list` says
// of the module's packages, test files aside, on every OS toold builds for.
// So the picture a newcomer reads first cannot drift from the imports.
//
// It has no code of its own; nothing imports it.
package layout

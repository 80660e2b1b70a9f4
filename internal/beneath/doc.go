// Package beneath says whether a path is a directory or lies beneath it:
// the one check of the roots (methods), of a sandbox's writable and
// readable dirs (methods, and sandbox's Landlock rules, mounts and
// Looser) and of the roots an MCP client announces against the
// command line's (mcp), of the index's events and symlinks against its
// tree (index) and of a walk's start against the dir whose ignore files
// apply (search); Rel gives the path relative to the dir to a caller that
// needs it. The paths are compared as given, lexically:
// callers resolve symlinks first (once, and compare what they resolved),
// since a path beneath a dir by name may lead anywhere.
package beneath

// Package beneath says whether a path is a directory or lies beneath it:
// the one check of the roots (methods), of a sandbox's writable and
// readable dirs (methods, lifecycle, and sandbox's Landlock rules and
// mounts on Linux) and of the roots an MCP client announces against the
// command line's (mcp). The paths are compared as given, lexically:
// callers resolve symlinks first (once, and compare what they resolved),
// since a path beneath a dir by name may lead anywhere.
package beneath

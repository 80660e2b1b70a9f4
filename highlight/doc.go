// Package highlight finds the lines of command output that a model must see
// wherever they sit: compiler errors, test failures, tracebacks, panics,
// error records of logs. It owns the rules (one table, rules.go: a row per
// tool's format), the streaming detector that applies them line by line in
// bounded memory, the keys that tell a repeat from a new message, and the
// order in which groups earn a place under a budget.
//
// It is pure, as truncate is: callers feed it cleaned lines (truncate.CleanLine)
// with their raw line numbers and take groups of whole lines back. A group
// may name lines that have left memory (the evidence of a verdict printed far
// from it, as go test -v does); the caller fetches those from the spool.
// It lives beside truncate rather than in it because its rules and state
// machine are a subject of their own, and truncate's windows need none of it.
package highlight

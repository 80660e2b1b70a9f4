// Package highlight finds the lines of command output that a model must see
// wherever they sit: compiler errors, test failures, tracebacks, panics,
// error records of logs. It owns the rules (one table, rules.go: a row per
// tool's format), the streaming detector that applies them line by line in
// bounded memory, the keys that tell a repeat from a new message, and the
// order in which groups earn a place under a budget.
//
// Beside the rules, it finds what any tool says went wrong: the vocabulary
// of failure (vocab.go: cannot, denied, no such, not found, undefined,
// overflow, core dumped, ... as words, not negated, not flags or file
// names), crash reports (sanitizers' "==PID==ERROR", valgrind's reports and
// summary, UBSan's "runtime error"), and the shapes of the hit lines in a
// bounded Drain-style template table (templates.go): a word of failure
// whose shape repeats all through the output is its ordinary talk, not a
// hit, and the shapes of an error-dense output are its kinds (Result.Kinds:
// masked text, count, first and last line).
//
// Beside the rules and the words, it finds what the output itself says is
// unusual (issue 28): it mines the shape of every line (shapes.go: the
// line without its digits, hex digits and spaces, hashed, counted in a
// count-min sketch, in the pass that applies a block), and in an
// output of repeated shapes a line of a new shape joins the group before
// it or opens one of its own (rare.go), shown at Finish with reason "rare"
// when its shape stayed rare, "exit" when the output's last lines report a
// failure (the lines the summary refers to). Every group has a reason
// (error, warning, exit, rare); Rank orders them by one score (rank.go).
// A hit of another shape after a run of hits of one shape opens a group
// of its own, and groups that touch merge, never drop one another.
//
// Every line is matched, so that counts are exact, and matching is made
// cheap without changing what matches: the prefilter (prefilter.go) keeps
// lines without a keyword from the rules, a rule anchored at ^ is ruled out
// by the line's first byte (firstbyte.go, read off its regexp), the log
// level rules scan fields in place of a backtracking regexp (level.go), and
// the tests hold each shortcut to its regexp. One pass over a candidate
// line makes its shape, its anchors and the pairs of the rules' literals
// (literals.go), so that a rule whose literals cannot be there is ruled out
// without a search.
//
// A block is classified (its candidate lines found and matched against the
// rules: pure work) apart from the state machine that makes groups of them
// (apply). Parallel runs the two on two goroutines, a block apart, for a
// long output: exec's detector, whose input (an error-dense log) can hold a
// hit on a line in three. It finds what a Detector fed the same blocks
// finds (TestParallelIsDetector).
//
// It is pure, as truncate is: callers feed it cleaned lines (truncate.CleanLine)
// with their raw line numbers and take groups of whole lines back. A group
// may name lines that have left memory (the evidence of a verdict printed far
// from it, as go test -v does); the caller fetches those from the spool.
// It lives beside truncate rather than in it because its rules and state
// machine are a subject of their own, and truncate's windows need none of it.
package highlight

package notice

import (
	"fmt"
	"strings"

	"github.com/toold/toold/protocol"
)

// GrepFacts are what a grep notice is made from.
type GrepFacts struct {
	Result *protocol.GrepResult
	// Limit, MaxBytes and MaxLineChars are the call's (after defaults).
	Limit, MaxBytes, MaxLineChars int
}

// Grep returns the one line that tells a model what a grep left out and
// how to get more, or "" when there is nothing to say.
func Grep(f GrepFacts) string {
	r := f.Result
	var parts []string
	switch {
	case r.LimitReached != nil && *r.LimitReached == protocol.GrepByMatches:
		parts = append(parts, fmt.Sprintf("[%d matches limit reached. %s]", f.Limit,
			more("limit", f.Limit, protocol.MaxGrepLimit, "refine pattern")))
	case r.LimitReached != nil && *r.LimitReached == protocol.GrepByBytes:
		parts = append(parts, fmt.Sprintf("[%s limit reached. %s]", Size(int64(f.MaxBytes)),
			more("maxBytes", f.MaxBytes, protocol.MaxGrepBytes, "refine pattern")))
	case r.TotalMatches == 0 && r.Skipped.Ignored > 0:
		parts = append(parts, "[No matches"+hidden(r.Skipped.Ignored, "searches")+"]")
	case r.TotalMatches == 0:
		parts = append(parts, "[No matches]")
	}
	if r.ClippedLines > 0 {
		parts = append(parts, fmt.Sprintf("[Some lines truncated to %d chars. Use read to see full lines]", f.MaxLineChars))
	}
	if n := r.Skipped.Binary; n > 0 {
		parts = append(parts, fmt.Sprintf("[%d binary %s with matches not shown]", n, plural(n, "file", "files")))
	}
	if n := r.Skipped.TooLarge; n > 0 {
		parts = append(parts, fmt.Sprintf("[%d %s over %s not searched: grep %s by path]", n, plural(n, "file", "files"),
			Size(protocol.MaxGrepFileSize), plural(n, "it", "one")))
	}
	return strings.Join(parts, " ")
}

// hidden says that ignore rules hid paths from a search that found
// nothing, and how to see them (verb: "searches", "lists").
func hidden(ignored int, verb string) string {
	return fmt.Sprintf("; %d %s skipped by .gitignore/.ignore: noIgnore=true %s them", ignored, plural(ignored, "path", "paths"), verb)
}

// Entries returns find's or ls' notice: what the limit left out, or that
// nothing was found (and what ignore rules hid, ignored entries); "" when
// there is nothing to say.
func Entries(method string, r *protocol.EntriesResult, limit, ignored int) string {
	max, what, refine := protocol.MaxFindLimit, "results", "refine pattern"
	if method == protocol.MethodLs {
		max, what, refine = protocol.MaxLsLimit, "entries", "list a subdirectory"
	}
	switch {
	case r.LimitReached:
		return fmt.Sprintf("[%d %s limit reached (%d in all). %s]", limit, what, r.Total, moreOf(limit, r.Total, max, refine))
	case r.Total == 0 && method == protocol.MethodLs && ignored > 0:
		return "[Empty directory" + hidden(ignored, "lists") + "]"
	case r.Total == 0 && method == protocol.MethodLs:
		return "[Empty directory]"
	case r.Total == 0 && ignored > 0:
		return "[No matches" + hidden(ignored, "searches") + "]"
	case r.Total == 0:
		return "[No matches]"
	}
	return ""
}

// more says how to get more than n: double the field, up to max, or else.
func more(field string, n, max int, orElse string) string {
	if n >= max {
		return fmt.Sprintf("%s=%d is the most; %s", field, max, orElse)
	}
	return fmt.Sprintf("Use %s=%d for more, or %s", field, min(2*n, max), orElse)
}

// moreOf says how to get all total entries when limit left some out: the
// limit that reaches the total, when the cap allows it, else as more does.
func moreOf(limit, total, max int, orElse string) string {
	if total > limit && total <= max {
		return fmt.Sprintf("Use limit=%d for all, or %s", total, orElse)
	}
	return more("limit", limit, max, orElse)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

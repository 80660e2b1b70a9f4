package testenv

import (
	"fmt"
	"strings"
	"testing"
)

// errorRecorder is a testing.TB that records Errorf instead of failing.
type errorRecorder struct {
	testing.TB
	errors []string
}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestCheckNoRace: a race report in a daemon's stderr fails the test that
// ran it, with the report; a daemon's ordinary log does not. TestExit
// checks it on the race runtime's own report.
func TestCheckNoRace(t *testing.T) {
	t.Parallel()
	report := "time=... level=DEBUG msg=served\n==================\nWARNING: DATA RACE\nWrite at 0x00c000012345 by goroutine 7:\n"
	for _, tt := range []struct {
		stderr string
		fails  bool
	}{
		{"time=... level=DEBUG msg=served\n", false},
		{"", false},
		{"level=INFO msg=\"grep DATA RACE\"\n", false},
		{report, true},
	} {
		r := &errorRecorder{TB: t}
		CheckNoRace(r, "the daemon", tt.stderr)
		if got := len(r.errors) > 0; got != tt.fails || tt.fails && !strings.Contains(r.errors[0], "Write at") {
			t.Errorf("stderr %q: errors %q, want failing %v with the report", tt.stderr, r.errors, tt.fails)
		}
	}
}

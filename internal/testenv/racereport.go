package testenv

import (
	"strings"
	"testing"
)

// CheckNoRace fails t if a -race binary's stderr (or a log it wrote) holds
// a race report; who names the binary in the failure. The race runtime
// prints its report when it finds the race but exits 66 only at the end,
// and the daemons the tests start are often killed or never asked for
// their exit code: without this a race in a -race binary would go unseen.
func CheckNoRace(t testing.TB, who, stderr string) {
	t.Helper()
	if i := strings.Index(stderr, "WARNING: DATA RACE"); i >= 0 {
		t.Errorf("%s reported a data race:\n%s", who, stderr[i:])
	}
}

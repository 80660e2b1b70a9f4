package lifecycle

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/toold/toold/protocol"
)

// TestMethodNames checks protocol.Methods against what the daemon answers:
// the lifecycle's own methods and methods/' working ones.
func TestMethodNames(t *testing.T) {
	t.Parallel() // a daemon of its own
	d, err := New(Options{SpoolRoot: filepath.Join(t.TempDir(), "spool")})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got := []string{protocol.MethodInitialize, protocol.MethodSessionClose, protocol.MethodShutdown,
		protocol.MethodExit, protocol.MethodCancelRequest, protocol.MethodStats}
	for m := range d.methods {
		got = append(got, m)
	}
	slices.Sort(got)
	if !slices.Equal(got, protocol.Methods) {
		t.Fatalf("the daemon answers %q; protocol.Methods lists %q", got, protocol.Methods)
	}
}

package rpc

import (
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestMain runs the parallel cases, every one of the package's, 32 at a
// time (unless -test.parallel says otherwise): some twenty of them mostly
// wait on the progress interval (TestProgress's ten, TestProgressNeverAfterReply's
// eight, TestClientOnProgress's two), and at eight at a time the last
// of them waited for the first to end.
func TestMain(m *testing.M) {
	testenv.ParallelAtLeast(32)
	testenv.Exit(m.Run())
}

package rpc

import (
	"flag"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestMain runs the parallel cases, every one of the package's, 32 at a
// time (unless -test.parallel says otherwise): some twenty of them mostly
// wait on the progress interval (TestProgress's ten, TestProgressNeverAfterReply's
// eight, TestClientOnProgress's two), and at eight at a time the last
// of them waited for the first to end.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "32")
	}
	testenv.Exit(m.Run())
}

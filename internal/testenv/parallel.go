package testenv

import (
	"flag"
	"runtime"
	"strconv"
)

// Parallel raises -test.parallel, unless the command line set it, to four
// tests a CPU and at least 8: the tests that drive daemons mostly wait on
// them (a process's start, a timeout, a reply), so the default of one a CPU
// leaves the CPUs idle. Call it in TestMain, before m.Run.
func Parallel() {
	ParallelAtLeast(max(8, 4*runtime.GOMAXPROCS(0)))
}

// ParallelAtLeast sets -test.parallel to n unless the command line set it:
// for a package whose parallel cases mostly wait (seconds on a timeout or
// a progress interval) and should all wait at once, with n past their
// number. The runner hands out its slots in no set order, so with fewer a
// long wait may start last and hold the package's run. Call it in
// TestMain, before m.Run.
func ParallelAtLeast(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// Package testenv is for tests only: the one switch between the quick
// default run and the long one (TOOLD_LONG=1, which .ci/run sets: Long,
// Size, SkipUnlessLong), and the built cmd/toold that the packages driving
// the binary share (Toold; Build for the binary as shipped). Beside them:
// the raised -test.parallel of packages that drive daemons (Parallel,
// ParallelAtLeast), the TestMain exit without the race runtime's second of
// sleep (Main, Exit; NoExitSleep for the -race binaries a test starts),
// CheckNoRace for those binaries' race reports, Race and Portable (how the
// tests were built), AsNobody to run the test binary's cases again as uid
// 65534, Loaded, a latency bound grown with the machine's load, and
// WaitFor and Until, a wait on a condition with a deadline (the one poll
// loop: a test waits on a condition, never on a fixed sleep).
//
// The binary is built once per version of its sources and flavour (-race
// or not, link flags) into a cache directory that every test package of a
// run, and later runs, find it in: `go test -race ./...` links toold once,
// not once per package, and builds it with the same -race setting as the
// tests, so a cold build cache compiles the dependencies once.
package testenv

// Package testenv is for tests only: the one switch between the quick
// default run and the long one (TOOLD_LONG=1, which .ci/run sets), and the
// built cmd/toold that the packages driving the binary share.
//
// The binary is built once per version of its sources and flavour (-race
// or not, link flags) into a cache directory that every test package of a
// run, and later runs, find it in: `go test -race ./...` links toold once,
// not once per package, and builds it with the same -race setting as the
// tests, so a cold build cache compiles the dependencies once.
package testenv

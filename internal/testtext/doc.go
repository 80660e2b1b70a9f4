// Package testtext gives tests the protocol's line rules done the slow,
// obvious way, to check the fast code against, and the generated text files
// that benchmarks read.
package testtext

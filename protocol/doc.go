// Package protocol owns toold's wire: the params and result of every method,
// the method names, the default limits and their caps, the preview modes and
// toold's error codes. It is what the contract (PROTOCOL.md) says in Go.
//
// # Why a package of its own
//
// Every one of these rules used to live in two or more places (limits in
// methods/ and again as numbers in mcp/, method lists in five places, the
// wire's JSON tags on exec's and fileindex's own types), and copies drift.
// Here each is written once: methods/ decodes into these params and maps its
// packages' plain results into these results; mcp/ reads these results and
// takes its schemas' numbers from here; lifecycle/ answers initialize and
// stats with them.
//
// It imports none of toold's packages, as gopls's internal/protocol imports
// none of gopls's: everything may depend on it, it depends on nothing.
package protocol

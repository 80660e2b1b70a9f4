//go:build !linux || toold_portable

package watchcost

// perEntry: kqueue holds a descriptor per entry of a watched directory.
const perEntry = true

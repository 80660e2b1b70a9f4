package methods

import (
	"math"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// count checks an optional size or count param: absent gives def, negative
// is refused naming the field, and the value is raised to lo and clamped to
// hi (the contract clamps sizes above their cap instead of refusing them).
func count(field string, v *protocol.Num, def, lo, hi int64) (int64, error) {
	if v == nil {
		return def, nil
	}
	if *v == math.MinInt64 { // saturated: the client wrote a larger one
		return 0, rpc.InvalidParams(field, "must not be negative, got a number below %d", math.MinInt64+1)
	}
	if *v < 0 {
		return 0, rpc.InvalidParams(field, "must not be negative, got %d", *v)
	}
	return min(max(int64(*v), lo), hi), nil
}

// intCount is count for int-sized limits.
func intCount(field string, v *protocol.Num, def int, lo, hi int64) (int, error) {
	n, err := count(field, v, int64(def), lo, hi)
	return int(n), err
}

package methods

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"

	"github.com/toold/toold/rpc"
)

// Num is an integer param. Any JSON integer decodes, however large, so that
// a huge size can be clamped to its cap rather than refused; a string, a
// fraction or any other value is a type error that names the field.
type Num int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Num) UnmarshalJSON(b []byte) error {
	var f json.Number
	if len(b) == 0 || !(b[0] == '-' || b[0] >= '0' && b[0] <= '9') || json.Unmarshal(b, &f) != nil {
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[int64]()}
	}
	if i, err := f.Int64(); err == nil {
		*n = Num(i)
		return nil
	}
	r, ok := new(big.Rat).SetString(string(f))
	if !ok || !r.IsInt() {
		return &json.UnmarshalTypeError{Value: "number " + string(b), Type: reflect.TypeFor[int64]()}
	}
	if i := r.Num(); i.IsInt64() {
		*n = Num(i.Int64()) // a whole number spelled 2.0 or 3e0
		return nil
	}
	if r.Sign() < 0 {
		*n = math.MinInt64
	} else {
		*n = math.MaxInt64
	}
	return nil
}

// count checks an optional size or count param: absent gives def, negative
// is refused naming the field, and the value is raised to lo and clamped to
// hi (the contract clamps sizes above their cap instead of refusing them).
func count(field string, v *Num, def, lo, hi int64) (int64, error) {
	if v == nil {
		return def, nil
	}
	if *v < 0 {
		return 0, rpc.InvalidParams(field, "must not be negative, got %d", *v)
	}
	return min(max(int64(*v), lo), hi), nil
}

// intCount is count for int-sized limits.
func intCount(field string, v *Num, def int, lo, hi int64) (int, error) {
	n, err := count(field, v, int64(def), lo, hi)
	return int(n), err
}

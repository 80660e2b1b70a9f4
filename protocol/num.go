package protocol

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
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

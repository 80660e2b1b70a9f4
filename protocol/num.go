package protocol

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Num is an integer param. Any JSON integer decodes, however large, so that
// a huge size can be clamped to its cap rather than refused; a string, a
// fraction or any other value is a type error that names the field.
type Num int64

// UnmarshalJSON implements json.Unmarshaler. It reads the literal's
// digits and exponent in one pass (math/big would take time quadratic in
// the digits, and memory exponential in the exponent's): a whole number,
// however spelled (2.0, 3e0, 1e30), decodes, saturated to the int64 range.
func (n *Num) UnmarshalJSON(b []byte) error {
	v, ok := parseInteger(b)
	if !ok {
		var f json.Number
		if len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9') && json.Unmarshal(b, &f) == nil {
			return &json.UnmarshalTypeError{Value: "number " + string(b), Type: reflect.TypeFor[int64]()}
		}
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[int64]()}
	}
	*n = Num(v)
	return nil
}

// parseInteger reads a JSON number literal that denotes a whole number,
// saturating to the int64 range; ok is false for anything else.
func parseInteger(b []byte) (v int64, ok bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	intPart, rest := cutDigits(b)
	if len(intPart) == 0 || len(intPart) > 1 && intPart[0] == '0' {
		return 0, false
	}
	var frac []byte
	if len(rest) > 0 && rest[0] == '.' {
		if frac, rest = cutDigits(rest[1:]); len(frac) == 0 {
			return 0, false
		}
	}
	exp := 0
	if len(rest) > 0 && (rest[0] == 'e' || rest[0] == 'E') {
		var ok bool
		if exp, rest, ok = parseExponent(rest[1:]); !ok {
			return 0, false
		}
	}
	if len(rest) > 0 {
		return 0, false
	}
	// The value is digits × 10^exp, once the digits lose their leading and
	// trailing zeros.
	digits := append(append(make([]byte, 0, len(intPart)+len(frac)), intPart...), frac...)
	exp -= len(frac)
	if len(bytes.TrimLeft(digits, "0")) == 0 {
		return 0, true
	}
	digits = bytes.TrimLeft(digits, "0")
	trimmed := bytes.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	digits = trimmed
	if exp < 0 {
		return 0, false // a fraction
	}
	if len(digits)+exp > 19 {
		return saturate(neg), true
	}
	u, err := strconv.ParseUint(string(digits)+strings.Repeat("0", exp), 10, 64)
	switch {
	case err != nil, !neg && u > math.MaxInt64, neg && u > 1<<63:
		return saturate(neg), true
	case neg:
		return int64(-u), true
	}
	return int64(u), true
}

// cutDigits splits b after its leading decimal digits.
func cutDigits(b []byte) (digits, rest []byte) {
	i := 0
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return b[:i], b[i:]
}

// parseExponent reads an exponent's sign and digits, saturated far beyond
// any that could matter.
func parseExponent(b []byte) (exp int, rest []byte, ok bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	digits, rest := cutDigits(b)
	if len(digits) == 0 {
		return 0, nil, false
	}
	for _, c := range digits {
		exp = min(exp*10+int(c-'0'), 1<<30)
	}
	if neg {
		exp = -exp
	}
	return exp, rest, true
}

func saturate(neg bool) int64 {
	if neg {
		return math.MinInt64
	}
	return math.MaxInt64
}

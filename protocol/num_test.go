package protocol

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"
)

// numOracle is Num's rule done the slow, obvious way, with math/big: a
// whole number saturated to the int64 range, else not ok.
func numOracle(s string) (int64, bool) {
	var f json.Number
	if json.Unmarshal([]byte(s), &f) != nil || s == "" || s[0] == '"' {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() {
		return 0, false
	}
	switch i := r.Num(); {
	case i.IsInt64():
		return i.Int64(), true
	case i.Sign() < 0:
		return math.MinInt64, true
	default:
		return math.MaxInt64, true
	}
}

func TestNumDecodes(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "7", "-7", "2.0", "3e0", "3E+2", "1.5e1", "120e-1", "1.25e2", "0.0", "0e99",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"1e18", "1e19", "1e30", "-1e30", "1000000000000000000000", "0.5", "1e-1", "-2.5",
		"00", "01", "1.", ".1", "1e", "1e+", "--1", "+1", `"1"`, "true", "1.0e-0",
		"123456789012345678.0", "12345678901234567890e-1", "92233720368547758070e-1",
	} {
		want, wantOK := numOracle(s)
		var n Num
		err := json.Unmarshal([]byte(`{"v":`+s+`}`), &struct{ V *Num }{&n})
		if json.Valid([]byte(s)) == false {
			// Not JSON: encoding/json refuses it before Num sees it.
			if err == nil {
				t.Errorf("%s: decoded", s)
			}
			continue
		}
		if (err == nil) != wantOK || wantOK && int64(n) != want {
			t.Errorf("%s: got %d, %v; want %d, ok %v", s, n, err, want, wantOK)
		}
	}
}

// TestNumLinear: issue 8 item 4. A million digits, or an exponent of a
// billion, decode at once (math/big took seconds, growing quadratically).
func TestNumLinear(t *testing.T) {
	for _, s := range []string{
		"1" + strings.Repeat("0", 1_000_000),
		"1" + strings.Repeat("0", 1_000_000) + "e-1000000",
		"1e999999999", "1e9999999", "-1e-999999999",
	} {
		start := time.Now()
		var n Num
		n.UnmarshalJSON([]byte(s))
		// Generous: linear work takes about a millisecond (800 ms seen under
		// -race at a load of 10 on two cores); math/big took over a second
		// for the first, and the second and fourth never end.
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%.20s… (%d chars) took %v", s, len(s), d)
		}
	}
}

func FuzzNum(f *testing.F) {
	for _, s := range []string{"0", "-1", "2.0", "3e2", "1e30", "0.5", "12e-1", "9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 40 || !json.Valid([]byte(s)) {
			return // big.Rat is the slow oracle: keep it to short literals
		}
		if i := strings.IndexAny(s, "eE"); i >= 0 && len(strings.TrimLeft(s[i+1:], "+-0")) > 4 {
			return // nor to huge exponents (it refuses them)
		}
		want, wantOK := numOracle(s)
		var n Num
		err := n.UnmarshalJSON([]byte(s))
		if (err == nil) != wantOK || wantOK && int64(n) != want {
			t.Errorf("%q: got %d, %v; want %d, ok %v", s, n, err, want, wantOK)
		}
	})
}

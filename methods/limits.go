package methods

import "github.com/toold/toold/protocol"

// ApplyLimits returns protocol.DefaultLimits overridden by p, each value
// checked and clamped to its cap; errors name the field, e.g.
// limits.read.maxBytes.
func ApplyLimits(p *protocol.LimitsParams) (protocol.Limits, error) {
	l := protocol.DefaultLimits
	if p == nil {
		return l, nil
	}
	var err error
	set := func(dst *int, v *protocol.Num, field string, lo, hi int64) {
		if err == nil && v != nil {
			var n int64
			n, err = count(field, v, 0, lo, hi)
			*dst = int(n)
		}
	}
	if r := p.Read; r != nil {
		set(&l.Read.Limit, r.Limit, "limits.read.limit", 1, protocol.MaxLimitLines)
		set(&l.Read.MaxBytes, r.MaxBytes, "limits.read.maxBytes", 1, protocol.MaxWindowBytes)
		set(&l.Read.MaxLineChars, r.MaxLineChars, "limits.read.maxLineChars", 0, protocol.MaxLineChars)
	}
	if r := p.ReadBytes; r != nil {
		set(&l.ReadBytes.MaxBytes, r.MaxBytes, "limits.readBytes.maxBytes", 1, protocol.MaxWindowBytes)
	}
	if e := p.Exec; e != nil {
		set(&l.Exec.MaxLines, e.MaxLines, "limits.exec.maxLines", 1, protocol.MaxExecLines)
		set(&l.Exec.MaxBytes, e.MaxBytes, "limits.exec.maxBytes", 1, protocol.MaxExecBytes)
		if err == nil && e.TimeoutMs != nil {
			l.Exec.TimeoutMs, err = count("limits.exec.timeoutMs", e.TimeoutMs, 0, 1, protocol.MaxExecTimeoutMs)
		}
	}
	return l, err
}

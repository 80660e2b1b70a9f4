package methods

// ReadLimits are the per-call defaults of read.
type ReadLimits struct {
	Limit        int `json:"limit"`
	MaxBytes     int `json:"maxBytes"`
	MaxLineChars int `json:"maxLineChars"`
}

// ReadBytesLimits are the per-call defaults of readBytes.
type ReadBytesLimits struct {
	MaxBytes int `json:"maxBytes"`
}

// ExecLimits are the per-call defaults of exec.
type ExecLimits struct {
	MaxLines  int   `json:"maxLines"`
	MaxBytes  int   `json:"maxBytes"`
	TimeoutMs int64 `json:"timeoutMs"`
}

// Limits are a session's per-call defaults, set by initialize.
type Limits struct {
	Read      ReadLimits      `json:"read"`
	ReadBytes ReadBytesLimits `json:"readBytes"`
	Exec      ExecLimits      `json:"exec"`
}

// DefaultLimits are the contract's defaults.
var DefaultLimits = Limits{
	Read:      ReadLimits{Limit: 2000, MaxBytes: 51200, MaxLineChars: 2000},
	ReadBytes: ReadBytesLimits{MaxBytes: 65536},
	Exec:      ExecLimits{MaxLines: 2000, MaxBytes: 51200, TimeoutMs: 120000},
}

// Caps: a size or count above its cap is clamped to it, not refused.
const (
	MaxWindowBytes   = 262144           // read, readBytes and page maxBytes
	MaxLimitLines    = 1 << 20          // read limit
	MaxExecLines     = 100000           // exec maxLines
	MaxExecBytes     = 262144           // exec maxBytes
	MaxExecTimeoutMs = 24 * 3600 * 1000 // a day
	MaxImageBytes    = 5 << 20          // images returned as base64
)

// LimitsParams are initialize's limits: each field optional.
type LimitsParams struct {
	Read *struct {
		Limit        *Num `json:"limit"`
		MaxBytes     *Num `json:"maxBytes"`
		MaxLineChars *Num `json:"maxLineChars"`
	} `json:"read"`
	ReadBytes *struct {
		MaxBytes *Num `json:"maxBytes"`
	} `json:"readBytes"`
	Exec *struct {
		MaxLines  *Num `json:"maxLines"`
		MaxBytes  *Num `json:"maxBytes"`
		TimeoutMs *Num `json:"timeoutMs"`
	} `json:"exec"`
}

// Apply returns DefaultLimits overridden by p, each value checked and
// clamped to its cap; errors name the field, e.g. limits.read.maxBytes.
func (p *LimitsParams) Apply() (Limits, error) {
	l := DefaultLimits
	if p == nil {
		return l, nil
	}
	var err error
	set := func(dst *int, v *Num, field string, lo, hi int64) {
		if err == nil && v != nil {
			var n int64
			n, err = count(field, v, 0, lo, hi)
			*dst = int(n)
		}
	}
	if r := p.Read; r != nil {
		set(&l.Read.Limit, r.Limit, "limits.read.limit", 1, MaxLimitLines)
		set(&l.Read.MaxBytes, r.MaxBytes, "limits.read.maxBytes", 1, MaxWindowBytes)
		set(&l.Read.MaxLineChars, r.MaxLineChars, "limits.read.maxLineChars", 0, 1<<30)
	}
	if r := p.ReadBytes; r != nil {
		set(&l.ReadBytes.MaxBytes, r.MaxBytes, "limits.readBytes.maxBytes", 1, MaxWindowBytes)
	}
	if e := p.Exec; e != nil {
		set(&l.Exec.MaxLines, e.MaxLines, "limits.exec.maxLines", 1, MaxExecLines)
		set(&l.Exec.MaxBytes, e.MaxBytes, "limits.exec.maxBytes", 1, MaxExecBytes)
		if err == nil && e.TimeoutMs != nil {
			l.Exec.TimeoutMs, err = count("limits.exec.timeoutMs", e.TimeoutMs, 0, 1, MaxExecTimeoutMs)
		}
	}
	return l, err
}

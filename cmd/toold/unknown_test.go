package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Contract: unknown params are ignored, and the result's notice names them
// with the nearest known field, in every mode.
func TestContractUnknownParams(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	os.WriteFile(file, []byte(strings.Repeat("line\n", 10)), 0o644)
	tests := []struct {
		method string
		params map[string]any
		want   string // the notice's start
	}{
		{"read", map[string]any{"path": file, "ofset": 5, "limit": 2},
			"[Unknown param ignored: ofset (did you mean offset?)] [Showing lines 1-2 of 10. Use offset=3 to continue]"},
		{"read", map[string]any{"path": file, "lmit": 2, "maxbyte": 3},
			"[Unknown params ignored: lmit (did you mean limit?), maxbyte (did you mean maxBytes?)]"},
		{"readBytes", map[string]any{"path": file, "startbytes": 5},
			"[Unknown param ignored: startbytes (did you mean startByte?)]"},
		{"exec", map[string]any{"command": "true", "timeout": 5},
			"[Unknown param ignored: timeout (did you mean timeoutMs?)]"},
		// A misspelt limit would leave its default in force without a word.
		{"initialize", map[string]any{"cwd": dir, "limits": map[string]any{"read": map[string]any{"limt": 2}}},
			"[Unknown param ignored: limits.read.limt (did you mean limits.read.limit?)]"},
	}
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		for _, tt := range tests {
			var res struct{ Notice *string }
			p.mustCall(tt.method, tt.params, &res)
			if res.Notice == nil || !strings.HasPrefix(*res.Notice, tt.want) {
				t.Errorf("%s %v: notice %v, want %q", tt.method, tt.params, res.Notice, tt.want)
			}
		}
		var init struct{ Notice *string }
		p.mustCall("initialize", map[string]any{"cwd": dir}, &init)
		if init.Notice != nil {
			t.Errorf("initialize with known params: notice %q", *init.Notice)
		}
		// Names are exact: a known name in another case is an unknown
		// param, named, and not taken for the known one.
		var w window
		p.mustCall("read", map[string]any{"path": file, "OFFSET": 9}, &w)
		if w.StartLine != 1 || w.Notice == nil || !strings.HasPrefix(*w.Notice, "[Unknown param ignored: OFFSET (did you mean offset?)]") {
			t.Errorf("OFFSET: start %d, notice %v", w.StartLine, w.Notice)
		}
	})
}

package remote

import "testing"

// TestExitCode checks which of the daemon's messages the forwarder keeps
// back: only the $/toold/exitCode notification, never a reply or a request
// that happens to mention it.
func TestExitCode(t *testing.T) {
	tests := []struct {
		msg  string
		code int
		ok   bool
	}{
		{`{"jsonrpc":"2.0","method":"$/toold/exitCode","params":{"code":1}}`, 1, true},
		{`{"jsonrpc":"2.0","method":"$/toold/exitCode","params":{"code":0}}`, 0, true},
		{`{"jsonrpc":"2.0","id":3,"method":"$/toold/exitCode","params":{"code":1}}`, 0, false},
		{`{"jsonrpc":"2.0","id":3,"result":{"content":"$/toold/exitCode"}}`, 0, false},
		{`{"jsonrpc":"2.0","method":"$/progress","params":{"lastLine":"$/toold/exitCode"}}`, 0, false},
		{`{"jsonrpc":"2.0","id":1,"result":null}`, 0, false},
	}
	for _, tt := range tests {
		code, ok := exitCode([]byte(tt.msg))
		if code != tt.code || ok != tt.ok {
			t.Errorf("%s: got %d %v, want %d %v", tt.msg, code, ok, tt.code, tt.ok)
		}
	}
}

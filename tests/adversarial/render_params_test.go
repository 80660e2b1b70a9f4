package adversarial

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRenderParamsAbuse: render (toold's own param of read, readBytes and
// page) given nonsense is -32602 naming the field, and the daemon goes on;
// a budget too small for anything still gives a window that moves on, and
// one past the cap is the cap.
func TestRenderParamsAbuse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var src strings.Builder
	for i := 0; src.Len() < 100<<10; i++ {
		fmt.Fprintf(&src, "# H%d\n%s\n", i, strings.Repeat("é text ", 10))
	}
	path := filepath.Join(dir, "f.md")
	if err := os.WriteFile(path, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, c := daemonStdio(t)
	sandboxCall(t, c, 1, "initialize", map[string]any{"cwd": dir, "roots": []string{dir}}, nil)
	bad := []struct {
		method string
		render any
		field  string
	}{
		{"read", map[string]any{"maxBytes": -1}, "render.maxBytes"},
		{"read", map[string]any{"maxBytes": "24576"}, "render.maxBytes"},
		{"read", map[string]any{"maxBytes": 1.5}, "render.maxBytes"},
		{"read", map[string]any{"outlineOver": -1}, "render.outlineOver"},
		{"read", map[string]any{"outlineOver": true}, "render.outlineOver"},
		{"read", []int{1}, "render"},
		{"read", "big", "render"},
		{"readBytes", map[string]any{"maxBytes": -5}, "render.maxBytes"},
	}
	id := 2
	for _, b := range bad {
		id++
		m := c.call(id, b.method, map[string]any{"path": path, "render": json.RawMessage(mustJSON(t, b.render))}, 30*time.Second)
		var data struct{ Field string }
		if m.Error != nil {
			json.Unmarshal(m.Error.Data, &data)
		}
		if m.Error == nil || m.Error.Code != -32602 || data.Field != b.field {
			t.Errorf("%s render=%v: %+v %.200s", b.method, b.render, m.Error, m.Result)
		}
	}
	// What is no error: the least window for a budget of a byte, the cap
	// for one past it, none for 0; each moves on.
	for _, r := range []map[string]any{{"maxBytes": 1}, {"maxBytes": 1 << 40}, {"maxBytes": 0}, {"maxBytes": 1, "outlineOver": 1}, {"outlineOver": 1 << 62}} {
		for _, method := range []string{"read", "readBytes"} {
			id++
			var w struct {
				StartByte, EndByte int64
				Content            string
				Next               map[string]int64
			}
			sandboxCall(t, c, id, method, map[string]any{"path": path, "render": r}, &w)
			if w.EndByte <= w.StartByte || w.Content == "" || w.Next == nil {
				t.Errorf("%s render=%v: bytes %d-%d, next %v", method, r, w.StartByte, w.EndByte, w.Next)
			}
		}
	}
	// The daemon goes on.
	id++
	var w struct{ Content string }
	sandboxCall(t, c, id, "read", map[string]any{"path": path, "limit": 1}, &w)
	if w.Content != "# H0\n" {
		t.Errorf("after the abuse: %q", w.Content)
	}
}

// mustJSON is v as JSON.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

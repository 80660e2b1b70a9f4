package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toold/toold/schema"
)

// validator checks instances against a method's params or result schema.
// Each is resolved once for the package's tests (resolved): resolved per
// check, as they were, they took TestSchemasAgainstResults more CPU under
// -race than its calls (a third of the case).
func validator(t *testing.T, method string, result bool) *jsonschema.Resolved {
	t.Helper()
	rs, err := resolved(schemaKey{method, result})
	if err != nil {
		t.Fatalf("%s schema (result %v): %v", method, result, err)
	}
	return rs
}

// schemaKey names a method's params schema, or its result's.
type schemaKey struct {
	method string
	result bool
}

var (
	resolvedMu sync.Mutex
	resolvedBy = map[schemaKey]func() (*jsonschema.Resolved, error){}
)

// resolved returns the schema k names, resolved on first use.
func resolved(k schemaKey) (*jsonschema.Resolved, error) {
	resolvedMu.Lock()
	f, ok := resolvedBy[k]
	if !ok {
		f = sync.OnceValues(func() (*jsonschema.Resolved, error) { return resolve(k) })
		resolvedBy[k] = f
	}
	resolvedMu.Unlock()
	return f()
}

// resolve resolves the schema k names.
func resolve(k schemaKey) (*jsonschema.Resolved, error) {
	get := schema.Params
	if k.result {
		get = schema.Result
	}
	s, err := get(k.method)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("no schema")
	}
	return s.Resolve(nil)
}

func validate(t *testing.T, rs *jsonschema.Resolved, what string, raw []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("%s does not match its schema: %v\n%s", what, err, raw)
	}
}

// The schemas describe the real results of every method, in every mode:
// windows of each kind, execs that end each way, stats, initialize.
func TestSchemasAgainstResults(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "t.txt")
	os.WriteFile(text, []byte(strings.Repeat("a line of text\n", 300)), 0o644)
	png, _ := os.ReadFile(testdata("read/pixel.png"))
	os.WriteFile(filepath.Join(dir, "p.png"), png, 0o644)
	blob, _ := os.ReadFile(testdata("read/blob.bin"))
	os.WriteFile(filepath.Join(dir, "blob.bin"), blob, 0o644)
	os.WriteFile(filepath.Join(dir, "empty.txt"), nil, 0o644)
	calls := []struct {
		method string
		params map[string]any
	}{
		{"initialize", map[string]any{"clientInfo": map[string]string{"name": "schema"}, "roots": []string{dir}, "limits": map[string]any{"read": map[string]any{"limit": 100}}}},
		{"read", map[string]any{"path": text, "limit": 10}},
		{"read", map[string]any{"path": text, "offset": 1000}},
		{"read", map[string]any{"path": text, "maxLineChars": 3, "ofset": 2}},
		{"read", map[string]any{"path": filepath.Join(dir, "p.png")}},
		{"read", map[string]any{"path": filepath.Join(dir, "blob.bin")}},
		{"read", map[string]any{"path": filepath.Join(dir, "empty.txt")}},
		{"readBytes", map[string]any{"path": text, "startByte": 20, "maxBytes": 40}},
		{"readBytes", map[string]any{"path": text, "startByte": 5, "maxBytes": 3}},
		{"exec", map[string]any{"command": "seq 1 5000; echo 'error: boom' >&2", "maxLines": 10}},
		{"exec", map[string]any{"command": "head -c 3000 /dev/urandom"}},
		{"exec", map[string]any{"command": "sleep 5", "timeoutMs": 50}},
		{"exec", map[string]any{"argv": []string{"sh", "-c", "kill -9 $$"}}},
		{"exec", map[string]any{"command": "echo hi", "preview": "tail", "timeout": 1}},
		{"stats", nil},
	}
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var spool string
		for _, c := range calls {
			if c.params != nil {
				b, _ := json.Marshal(c.params)
				validate(t, validator(t, c.method, false), c.method+" params", b)
			}
			var raw json.RawMessage
			if err := p.call(c.method, c.params, &raw); err != nil {
				t.Fatalf("%s %v: %v", c.method, c.params, err)
			}
			validate(t, validator(t, c.method, true), c.method+" result", raw)
			if c.method == "exec" && spool == "" {
				var r struct {
					Stdout struct{ Spool *struct{ ID string } }
				}
				json.Unmarshal(raw, &r)
				if r.Stdout.Spool != nil {
					spool = r.Stdout.Spool.ID
				}
			}
		}
		for _, params := range []map[string]any{{"spool": spool, "offset": 3, "limit": 2}, {"spool": spool, "startByte": 10, "clean": false}} {
			var raw json.RawMessage
			p.mustCall("page", params, &raw)
			validate(t, validator(t, "page", true), "page result", raw)
		}
	})
}

// The schemas can fail: a result with a field the wire type lacks, or
// without one it has, and params without a required field.
func TestSchemasRefuse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		method string
		result bool
		json   string
	}{
		{"stats", true, `{"sessions":1,"execsRunning":0,"cache":{"entries":0,"hits":0,"misses":0,"invalidations":0,"indexBytes":0},"spoolBytes":0,"uptimeMs":1,"extra":1}`},
		{"stats", true, `{"sessions":1}`},
		{"read", false, `{"offset":2}`},
		{"page", false, `{"offset":2}`},
		{"exec", false, `{"command":"x","preview":"middle"}`},
		{"initialize", false, `{"sandbox":{"mode":"strict"}}`},
		{"read", false, `{"path":"x","limit":"ten"}`},
	} {
		var v any
		json.Unmarshal([]byte(tt.json), &v)
		if validator(t, tt.method, tt.result).Validate(v) == nil {
			t.Errorf("%s (result %v) accepts %s", tt.method, tt.result, tt.json)
		}
	}
}

// toold schema prints what package schema makes, whole or by method.
func TestSchemaCommand(t *testing.T) {
	t.Parallel()
	out, _, code := runBin(t, "", nil, "schema")
	var all map[string]struct{ Params, Result json.RawMessage }
	if code != 0 || json.Unmarshal([]byte(out), &all) != nil {
		t.Fatalf("toold schema: %d %s", code, out)
	}
	for _, m := range []string{"initialize", "read", "readBytes", "page", "exec", "stats"} {
		if len(all[m].Result) == 0 {
			t.Errorf("toold schema: no result schema for %s", m)
		}
	}
	if !strings.Contains(string(all["stats"].Params), `"sandbox"`) || len(all["read"].Params) == 0 || len(all["shutdown"].Params) != 0 {
		t.Errorf("params: stats %s, read %s, shutdown %s", all["stats"].Params, all["read"].Params, all["shutdown"].Params)
	}
	one, _, code := runBin(t, "", nil, "schema", "read")
	var r struct{ Params, Result json.RawMessage }
	if code != 0 || json.Unmarshal([]byte(one), &r) != nil || string(compact(r.Result)) != string(compact(all["read"].Result)) {
		t.Errorf("toold schema read: %d %s", code, one)
	}
	if _, e, code := runBin(t, "", nil, "schema", "frob"); code != 2 || !strings.Contains(e, `no method "frob"`) {
		t.Errorf("toold schema frob: %d %q", code, e)
	}
}

func compact(raw json.RawMessage) []byte {
	var b strings.Builder
	var v any
	json.Unmarshal(raw, &v)
	out, _ := json.Marshal(v)
	b.Write(out)
	return []byte(b.String())
}

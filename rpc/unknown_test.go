package rpc

import (
	"encoding/json"
	"reflect"
	"testing"
)

type innerParams struct {
	MaxBytes int `json:"maxBytes"`
}

type baseParams struct {
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

type testParams struct {
	Path string `json:"path"`
	baseParams
	Inner  *innerParams      `json:"inner"`
	Env    map[string]string `json:"env"`
	Hidden string            `json:"-"`
	NoTag  bool
}

func TestUnknownFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		params string
		want   []Unknown
	}{
		{`{"path":"a","offset":2,"limit":3}`, nil},
		{`{"ofset":2}`, []Unknown{{"ofset", "offset"}}},
		{`{"OFFSET":2,"PATH":"x","NoTag":true}`, []Unknown{{"OFFSET", "offset"}, {"PATH", "path"}}}, // names are exact
		{`{"inner":{"MaxBytes":1}}`, []Unknown{{"inner.MaxBytes", "inner.maxBytes"}}},
		{`{"lmit":1,"pth":"x"}`, []Unknown{{"lmit", "limit"}, {"pth", "path"}}},
		{`{"inner":{"maxbytes":1,"maxByte":2}}`, []Unknown{{"inner.maxByte", "inner.maxBytes"}, {"inner.maxbytes", "inner.maxBytes"}}},
		{`{"env":{"anything":"goes"}}`, nil},
		{`{"Hidden":"x"}`, []Unknown{{"Hidden", "inner"}}}, // json:"-" is not a field
		{`{"inner":null,"inner2":{}}`, []Unknown{{"inner2", "inner"}}},
		{`[1,2]`, nil},
		{`null`, nil},
		{``, nil},
		{`{"path":`, nil},
	}
	for _, tt := range tests {
		got := UnknownFields(json.RawMessage(tt.params), testParams{})
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("UnknownFields(%s) = %v, want %v", tt.params, got, tt.want)
		}
		if p := UnknownFields(json.RawMessage(tt.params), &testParams{}); !reflect.DeepEqual(p, got) {
			t.Errorf("through a pointer: %v", p)
		}
	}
	if got := UnknownFields(json.RawMessage(`{"a":1}`), nil); got != nil {
		t.Errorf("nil type: %v", got)
	}
	if got := UnknownFields(json.RawMessage(`{"a":1}`), struct{}{}); !reflect.DeepEqual(got, []Unknown{{"a", ""}}) {
		t.Errorf("a type with no fields: %v", got)
	}
}

func FuzzUnknownFields(f *testing.F) {
	f.Add(`{"ofset":1,"inner":{"x":2}}`)
	f.Fuzz(func(t *testing.T, params string) {
		for _, u := range UnknownFields(json.RawMessage(params), testParams{}) {
			if u.Field == "" {
				t.Errorf("an unknown field with no name in %q", params)
			}
		}
	})
}

// FuzzMayFold: where mayFold finds no key that folds, dropping the folded
// keys changes nothing (its shortcut loses no key).
func FuzzMayFold(f *testing.F) {
	for _, s := range []string{`{"path":"a","OFFSET":2}`, `{"inner":{"MaxBytes":1}}`, `{"p\u0061th":"x"}`, `{"env":{"PATH":"x"}}`, `{"a" : {"Path":1}}`} {
		f.Add(s)
	}
	t := reflect.TypeFor[testParams]()
	f.Fuzz(func(tt *testing.T, params string) {
		if !json.Valid([]byte(params)) || mayFold([]byte(params), t) {
			return
		}
		if got := dropFolded(json.RawMessage(params), t); string(got) != params {
			tt.Errorf("mayFold found nothing in %s, dropFolded made %s", params, got)
		}
	})
}

package rpc

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

type readParams struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  uint   `json:"limit"`
	Limits struct {
		Read struct {
			MaxBytes int `json:"maxBytes"`
		} `json:"read"`
	} `json:"limits"`
	Roots []string          `json:"roots"`
	Env   map[string]string `json:"env"`
	Clean *bool             `json:"clean"`
}

func TestDecodeParams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		params string
		code   int64  // 0: no error
		field  string // the field the error names
		inText string
		check  func(t *testing.T, p readParams)
	}{
		{name: "absent keeps defaults", params: ``, check: func(t *testing.T, p readParams) {
			if p.Offset != 1 || p.Limit != 2000 {
				t.Errorf("defaults lost: %+v", p)
			}
		}},
		{name: "null keeps defaults", params: ` null `, check: func(t *testing.T, p readParams) {
			if p.Offset != 1 {
				t.Errorf("defaults lost: %+v", p)
			}
		}},
		{name: "fields set, unknown ignored", params: `{"path":"/a","offset":5,"bogus":[1,{}],"limits":{"read":{"maxBytes":9}}}`, check: func(t *testing.T, p readParams) {
			if p.Path != "/a" || p.Offset != 5 || p.Limit != 2000 || p.Limits.Read.MaxBytes != 9 {
				t.Errorf("got %+v", p)
			}
		}},
		{name: "names are exact, not folded", params: `{"Path":"/b","path":"/a","OFFSET":7,"limits":{"read":{"MaxBytes":9,"maxBytes":3}}}`, check: func(t *testing.T, p readParams) {
			if p.Path != "/a" || p.Offset != 1 || p.Limits.Read.MaxBytes != 3 {
				t.Errorf("a key that folds to a field's name was decoded: %+v", p)
			}
		}},
		{name: "folded name alone leaves the default", params: `{"Path":"/b","Offset":7}`, check: func(t *testing.T, p readParams) {
			if p.Path != "" || p.Offset != 1 {
				t.Errorf("got %+v", p)
			}
		}},
		{name: "string for int", params: `{"offset":"x"}`, code: CodeInvalidParams, field: "offset", inText: "invalid params: offset: must be an integer, got a string"},
		{name: "fraction for int", params: `{"offset":1.5}`, code: CodeInvalidParams, field: "offset", inText: "offset: must be an integer, got 1.5"},
		{name: "negative for uint", params: `{"limit":-1}`, code: CodeInvalidParams, field: "limit", inText: "limit: must be a non-negative integer, got -1"},
		{name: "too big", params: `{"offset":1e30}`, code: CodeInvalidParams, field: "offset", inText: "offset"},
		{name: "nested field", params: `{"limits":{"read":{"maxBytes":true}}}`, code: CodeInvalidParams, field: "limits.read.maxBytes", inText: "limits.read.maxBytes: must be an integer, got a boolean"},
		{name: "object for string", params: `{"path":{}}`, code: CodeInvalidParams, field: "path", inText: "path: must be a string, got an object"},
		{name: "number in array of strings", params: `{"roots":["/a",1]}`, code: CodeInvalidParams, field: "roots[1]", inText: "roots[1]: must be a string, got a number"},
		{name: "object in array of strings", params: `{"roots":["/a", "/b" , {"x":[1]}]}`, code: CodeInvalidParams, field: "roots[2]", inText: "roots[2]: must be a string, got an object"},
		{name: "nested, after other arrays", params: `{"bogus":[[1],{"a":[2]}],"limits":{"read":{"maxBytes":true}}}`, code: CodeInvalidParams, field: "limits.read.maxBytes", inText: "limits.read.maxBytes: must be an integer"},
		{name: "array for map", params: `{"env":[]}`, code: CodeInvalidParams, field: "env", inText: "env: must be an object"},
		{name: "number for pointer to bool", params: `{"clean":1}`, code: CodeInvalidParams, field: "clean", inText: "clean: must be a boolean"},
		{name: "array params", params: `["/a", 1]`, code: CodeInvalidParams, inText: "must be an object, not an array"},
		{name: "string params", params: `"x"`, code: CodeInvalidParams, inText: "must be an object, not a string"},
		{name: "number params", params: `5`, code: CodeInvalidParams, inText: "must be an object"},
		{name: "syntax error", params: `{"offset":`, code: CodeInvalidParams, inText: "invalid params"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := readParams{Offset: 1, Limit: 2000}
			err := DecodeParams(json.RawMessage(tt.params), &p)
			if tt.code == 0 {
				if err != nil {
					t.Fatalf("DecodeParams: %v", err)
				}
				tt.check(t, p)
				return
			}
			var re *Error
			if !errors.As(err, &re) {
				t.Fatalf("DecodeParams: %v (%T), want *Error", err, err)
			}
			if re.Code != tt.code {
				t.Errorf("code %d, want %d", re.Code, tt.code)
			}
			if !strings.Contains(re.Message, tt.inText) {
				t.Errorf("message %q does not contain %q", re.Message, tt.inText)
			}
			if tt.field != "" {
				data, _ := json.Marshal(re.Data)
				if want := `{"field":"` + tt.field + `"}`; string(data) != want {
					t.Errorf("data %s, want %s", data, want)
				}
			}
		})
	}
}

func TestDecodeParamsNotAPointer(t *testing.T) {
	t.Parallel()
	var re *Error
	if err := DecodeParams(json.RawMessage(`{}`), readParams{}); !errors.As(err, &re) || re.Code != CodeInternalError {
		t.Errorf("got %v, want -32603", err)
	}
}

func TestErrorHelpers(t *testing.T) {
	t.Parallel()
	e := InvalidParams("offset", "must not be negative")
	if e.Message != "invalid params: offset: must not be negative" || e.Code != CodeInvalidParams {
		t.Errorf("InvalidParams: %+v", e)
	}
	if e := Errorf(codeApp, nil, "no such file: %s", "/x"); e.Error() != "rpc error -32001: no such file: /x" {
		t.Errorf("Error(): %q", e.Error())
	}
	if e := MethodNotFound("frob"); e.Code != CodeMethodNotFound || !strings.Contains(e.Message, "frob") {
		t.Errorf("MethodNotFound: %+v", e)
	}
}

type OutputParams struct {
	MaxLines int    `json:"maxLines"`
	MaxBytes strict `json:"maxBytes"`
	Limits   struct {
		Bytes int `json:"bytes"`
	} `json:"limits"`
}

type embeddingParams struct {
	Command string `json:"command"`
	OutputParams
	*Inner
}

type Inner struct {
	Deep []int `json:"deep"`
}

// strict refuses any value with a type error of its own, as protocol.Num
// does (encoding/json then reports no offset).
type strict struct{}

func (*strict) UnmarshalJSON(b []byte) error {
	return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[int64]()}
}

// TestDecodeParamsEmbedded: a type error in a field of an embedded struct
// names the field's JSON path, not the struct's Go name, as exec's and
// page's params embed theirs.
func TestDecodeParamsEmbedded(t *testing.T) {
	t.Parallel()
	tests := []struct{ params, field string }{
		{`{"maxLines":"x"}`, "maxLines"},
		{`{"command":"c","maxBytes":"x"}`, "maxBytes"},
		{`{"command":"c","limits":{"bytes":true}}`, "limits.bytes"},
		{`{"deep":[1,"x"]}`, "deep[1]"},
		{`{"command":7}`, "command"},
	}
	for _, tt := range tests {
		var p embeddingParams
		var re *Error
		if err := DecodeParams(json.RawMessage(tt.params), &p); !errors.As(err, &re) {
			t.Fatalf("%s: %v", tt.params, err)
		}
		data, _ := json.Marshal(re.Data)
		if want := `{"field":"` + tt.field + `"}`; string(data) != want || !strings.HasPrefix(re.Message, "invalid params: "+tt.field+": ") {
			t.Errorf("%s: data %s, message %q, want field %s", tt.params, data, re.Message, tt.field)
		}
	}
}

package schema

import (
	"fmt"
	"reflect"
	"slices"
	"sort"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toold/toold/protocol"
)

// required are the params each method cannot do without.
var required = map[string][]string{
	protocol.MethodRead:         {"path"},
	protocol.MethodReadBytes:    {"path"},
	protocol.MethodPage:         {"spool"},
	protocol.MethodGrep:         {"pattern"},
	protocol.MethodProcessRead:  {"id"},
	protocol.MethodProcessWait:  {"id"},
	protocol.MethodProcessWrite: {"id", "stdin"},
	protocol.MethodProcessKill:  {"id"},
}

// notParams are fields a params type has but the method does not read:
// PageParams embeds ReadParams for its window params, path and all.
var notParams = map[string][]string{
	protocol.MethodPage: {"path"},
}

// nullResults are the methods that answer a request with a null result.
var nullResults = []string{protocol.MethodSessionClose, protocol.MethodShutdown, protocol.MethodCancelRequest}

// cancelParams is $/cancelRequest's params: the id of the request to cancel.
var cancelParams = &jsonschema.Schema{
	Type:       "object",
	Properties: map[string]*jsonschema.Schema{"id": {Types: []string{"string", "integer"}}},
	Required:   []string{"id"},
}

// Params is the schema of method's params; nil for a method without params.
func Params(method string) (*jsonschema.Schema, error) {
	if method == protocol.MethodCancelRequest {
		return cancelParams.CloneSchemas(), nil
	}
	v, ok := protocol.Params[method]
	if !ok {
		return nil, nil
	}
	s, err := jsonschema.ForType(reflect.TypeOf(v), nil)
	if err != nil {
		return nil, fmt.Errorf("schema of %s's params: %w", method, err)
	}
	loosen(s)
	s.Required = required[method]
	for _, f := range notParams[method] {
		delete(s.Properties, f)
		s.PropertyOrder = slices.DeleteFunc(s.PropertyOrder, func(p string) bool { return p == f })
	}
	if method == protocol.MethodProcessKill {
		// protocol.SignalParam decodes a name or a number.
		sig := s.Properties["signal"]
		sig.Type, sig.Types = "", []string{"null", "string", "integer"}
	}
	if method == protocol.MethodExec {
		s.Properties["preview"].Enum = enum(protocol.PreviewModes)
	}
	if method == protocol.MethodInitialize {
		s.Properties["sandbox"].Properties["mode"].Enum = enum(protocol.SandboxModes)
	}
	return s, nil
}

// loosen makes s, a schema inferred from a params type, what decoding
// accepts: any field may be left out, and unknown fields are ignored.
func loosen(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.Required = nil
	if s.Type == "object" || slices.Contains(s.Types, "object") {
		if s.AdditionalProperties != nil && reflect.DeepEqual(s.AdditionalProperties, &jsonschema.Schema{Not: &jsonschema.Schema{}}) {
			s.AdditionalProperties = nil
		}
	}
	for _, p := range s.Properties {
		loosen(p)
	}
	loosen(s.Items)
}

// Result is the schema of method's result; nil for a notification (exit).
func Result(method string) (*jsonschema.Schema, error) {
	if slices.Contains(nullResults, method) {
		return &jsonschema.Schema{Type: "null"}, nil
	}
	v, ok := protocol.Results[method]
	if !ok {
		return nil, nil
	}
	s, err := jsonschema.ForType(reflect.TypeOf(v), nil)
	if err != nil {
		return nil, fmt.Errorf("schema of %s's result: %w", method, err)
	}
	highlightReasons(s)
	return s, nil
}

// highlightReasons gives the reason of every highlight in s its values.
func highlightReasons(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if h := s.Properties["highlights"]; h != nil && h.Items != nil && h.Items.Properties["reason"] != nil {
		h.Items.Properties["reason"].Enum = enum(protocol.HighlightReasons)
	}
	for _, p := range s.Properties {
		highlightReasons(p)
	}
	highlightReasons(s.Items)
}

// Method is one method's schemas, as `toold schema` prints them.
type Method struct {
	Params *jsonschema.Schema `json:"params,omitempty"`
	Result *jsonschema.Schema `json:"result,omitempty"`
}

// All is every method initialize reports, by name, with its params and
// result schemas (none for a method that takes no params or, as exit, is a
// notification).
func All() (map[string]Method, error) {
	names := map[string]bool{}
	for _, m := range protocol.Methods {
		names[m] = true
	}
	for m := range protocol.Params {
		names[m] = true
	}
	for m := range protocol.Results {
		names[m] = true
	}
	out := make(map[string]Method, len(names))
	for _, m := range sorted(names) {
		p, err := Params(m)
		if err != nil {
			return nil, err
		}
		r, err := Result(m)
		if err != nil {
			return nil, err
		}
		out[m] = Method{Params: p, Result: r}
	}
	return out, nil
}

func sorted(set map[string]bool) []string {
	var s []string
	for k := range set {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

func enum(vals []string) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out
}

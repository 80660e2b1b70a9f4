package schema

import (
	"slices"
	"testing"

	"github.com/toold/toold/protocol"
)

func TestParams(t *testing.T) {
	for _, tt := range []struct {
		method   string
		required []string
		has, not []string
	}{
		{protocol.MethodRead, []string{"path"}, []string{"path", "offset", "limit", "maxBytes", "maxLineChars"}, nil},
		{protocol.MethodReadBytes, []string{"path"}, []string{"startByte", "maxBytes"}, []string{"offset"}},
		{protocol.MethodPage, []string{"spool"}, []string{"spool", "offset", "startByte", "clean"}, []string{"path"}},
		{protocol.MethodExec, nil, []string{"command", "argv", "preview", "timeoutMs"}, nil},
		{protocol.MethodInitialize, nil, []string{"cwd", "roots", "limits"}, nil},
	} {
		s, err := Params(tt.method)
		if err != nil || s == nil {
			t.Fatalf("%s: %v", tt.method, err)
		}
		if !slices.Equal(s.Required, tt.required) || s.AdditionalProperties != nil {
			t.Errorf("%s: required %v, additionalProperties %v", tt.method, s.Required, s.AdditionalProperties)
		}
		for _, p := range tt.has {
			if s.Properties[p] == nil {
				t.Errorf("%s: no param %s", tt.method, p)
			}
		}
		for _, p := range tt.not {
			if s.Properties[p] != nil || slices.Contains(s.PropertyOrder, p) {
				t.Errorf("%s: param %s it does not read", tt.method, p)
			}
		}
	}
	if s, _ := Params(protocol.MethodExec); len(s.Properties["preview"].Enum) != len(protocol.PreviewModes) {
		t.Errorf("preview enum: %v", s.Properties["preview"].Enum)
	}
	if s, _ := Params(protocol.MethodInitialize); len(s.Properties["sandbox"].Properties["mode"].Enum) != len(protocol.SandboxModes) {
		t.Errorf("sandbox.mode enum: %v", s.Properties["sandbox"].Properties["mode"].Enum)
	}
	if s, err := Params(protocol.MethodStats); err != nil || s.Properties["sandbox"] == nil || len(s.Properties) != 1 {
		t.Errorf("stats takes sandbox only: %v %v", s, err)
	}
	// Nested params objects are loose too: limits.read may leave out any field.
	s, _ := Params(protocol.MethodInitialize)
	if r := s.Properties["limits"].Properties["read"]; r == nil || r.Required != nil || r.AdditionalProperties != nil {
		t.Errorf("limits.read: %+v", r)
	}
}

func TestAll(t *testing.T) {
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range protocol.Methods {
		if _, ok := all[m]; !ok {
			t.Errorf("%s: not in All", m)
		}
	}
	for _, m := range []string{protocol.MethodSessionClose, protocol.MethodShutdown, protocol.MethodCancelRequest} {
		if r := all[m].Result; r == nil || r.Type != "null" {
			t.Errorf("%s: result %+v, want null", m, r)
		}
	}
	if p := all[protocol.MethodCancelRequest].Params; p == nil || !slices.Equal(p.Required, []string{"id"}) {
		t.Errorf("$/cancelRequest params: %+v", p)
	}
	if m := all[protocol.MethodExit]; m.Params != nil || m.Result != nil {
		t.Errorf("exit, a notification without params: %+v", m)
	}
	for m := range protocol.Results {
		r := all[m].Result
		if r != nil && r.Items != nil {
			r = r.Items // process/list: a list of objects
		}
		if r == nil || r.AdditionalProperties == nil {
			t.Errorf("%s: result schema %+v is not strict", m, all[m].Result)
		}
	}
}

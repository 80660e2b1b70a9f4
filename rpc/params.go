package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// MaxNumberChars caps the length of a number literal in params. No param
// needs more (a float64 is exact in 17 significant digits), and a longer
// literal is refused before it is parsed: turning decimal digits into a
// binary number takes time that grows faster than their count.
const MaxNumberChars = 256

// DecodeParams decodes a request's params into v, a pointer to a struct.
// Absent or null params leave v as it is, so defaults set beforehand stay.
// Params that are not a JSON object, that are not JSON, or whose fields have
// the wrong type give a -32602 *Error; a type error names the JSON field (its
// dotted path, e.g. "limits.read.maxBytes"). So does a number literal
// longer than MaxNumberChars. Unknown fields are ignored, and so is a key
// that names a field only by folding case ("Path"): field names are exact.
func DecodeParams(params json.RawMessage, v any) error {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || string(p) == "null" {
		return nil
	}
	if p[0] != '{' {
		return Errorf(CodeInvalidParams, nil, "invalid params: must be an object, not %s", jsonKind(p[0]))
	}
	if at, n := longNumber(p, MaxNumberChars); n > 0 {
		return InvalidParams(pathAt(p, at), "a number literal of %d characters at byte %d; at most %d are allowed", n, at, MaxNumberChars)
	}
	p = exactKeys(p, reflect.TypeOf(v))
	err := json.Unmarshal(p, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	var ie *json.InvalidUnmarshalError
	switch {
	case errors.As(err, &te):
		return InvalidParams(typeErrorField(p, reflect.TypeOf(v), te), "%s", typeMessage(te))
	case errors.As(err, &se):
		return Errorf(CodeInvalidParams, nil, "invalid params: not valid JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &ie):
		// A bug in the caller, not in the client's input.
		return Errorf(CodeInternalError, nil, "internal error: %v", ie)
	default:
		// e.g. a field type's own UnmarshalJSON refused the value.
		return Errorf(CodeInvalidParams, nil, "invalid params: %v", err)
	}
}

// typeMessage says, in JSON's words, what a field should have been and what
// it was.
func typeMessage(te *json.UnmarshalTypeError) string {
	want := "a valid value"
	if te.Type != nil {
		want = jsonTypeName(te.Type)
	}
	got, isNumber := strings.CutPrefix(te.Value, "number ")
	if isNumber {
		// A number that the Go type cannot hold: a fraction, a sign, or too
		// many digits.
		negative := strings.HasPrefix(got, "-")
		if !strings.ContainsAny(got, ".eE") && !(negative && want == "a non-negative integer") {
			return fmt.Sprintf("must be %s, got %s (out of range)", want, got)
		}
		return fmt.Sprintf("must be %s, got %s", want, got)
	}
	return fmt.Sprintf("must be %s, got %s", want, article(te.Value))
}

func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	default:
		return "a valid value"
	}
}

func article(kind string) string {
	switch kind {
	case "string", "number", "boolean", "bool":
		if kind == "bool" {
			kind = "boolean"
		}
		return "a " + kind
	case "object", "array":
		return "an " + kind
	default:
		return kind
	}
}

// jsonKind names the JSON type that starts with byte c.
func jsonKind(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	default:
		return "JSON"
	}
}

// longNumber finds the first number literal in the JSON text p (outside
// strings) longer than max characters, and returns its offset and length;
// n is 0 when there is none. It runs in one pass, whatever p holds.
func longNumber(p []byte, max int) (at, n int) {
	var str stringScan
	start := -1
	for i, c := range p {
		if str.step(c) {
			start = -1
			continue
		}
		if isNumberByte(c) {
			if start < 0 {
				start = i
			}
			if i-start+1 > max {
				end := i
				for end < len(p) && isNumberByte(p[end]) {
					end++
				}
				return start, end - start
			}
			continue
		}
		start = -1
	}
	return 0, 0
}

// stringScan follows a JSON text a byte at a time and tells the bytes of
// its strings, quotes included, from the rest, without decoding. Its zero
// value is outside any string.
type stringScan struct{ in, escaped bool }

// step takes the text's next byte c and reports whether it belongs to a
// string; in is then whether a string is still open after it.
func (s *stringScan) step(c byte) bool {
	switch {
	case !s.in:
		s.in = c == '"'
		return s.in
	case s.escaped:
		s.escaped = false
	case c == '\\':
		s.escaped = true
	case c == '"':
		s.in = false
	}
	return true
}

func isNumberByte(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || '0' <= c && c <= '9'
}

// pathAt is the dotted path of the field whose value starts at byte at of
// p, a JSON object (an array element's is its array's; "" when the value is
// not at a member's value): the JSON before it is read token by token,
// which stops where the value begins.
func pathAt(p []byte, at int) string {
	type level struct {
		obj, wantKey bool
		key          string
	}
	var stack []level
	dec := json.NewDecoder(bytes.NewReader(p[:at]))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				stack = append(stack, level{obj: d == '{', wantKey: d == '{'})
				continue
			}
			if stack = stack[:len(stack)-1]; len(stack) > 0 {
				stack[len(stack)-1].wantKey = stack[len(stack)-1].obj
			}
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].obj {
			if stack[n-1].wantKey {
				stack[n-1].key, _ = tok.(string)
			}
			stack[n-1].wantKey = !stack[n-1].wantKey
		}
	}
	var keys []string
	for _, l := range stack {
		switch {
		case !l.obj:
			continue // an array's element: named by the array's field
		case l.wantKey:
			return "" // not at a member's value
		}
		keys = append(keys, l.key)
	}
	return strings.Join(keys, ".")
}

// typeErrorField names te's field by its path in p, with the index of the
// array element it is in ("sandbox.writable[1]", where encoding/json says
// "sandbox.writable") and without the Go names of embedded structs, found
// by walking p to te's offset; te.Field when the walk finds another field.
func typeErrorField(p []byte, t reflect.Type, te *json.UnmarshalTypeError) string {
	field := withoutEmbedded(t, te.Field)
	path := indexedPath(p, te.Offset)
	if strings.Contains(path, "[") && noIndexes.ReplaceAllString(path, "") == field {
		return path
	}
	return field
}

// withoutEmbedded is field, a dotted path as encoding/json names it in a
// value of type t, without the Go names of the embedded structs it goes
// through ("OutputParams.maxBytes" is "maxBytes" on the wire).
func withoutEmbedded(t reflect.Type, field string) string {
	var keep []string
	for _, name := range strings.Split(field, ".") {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			keep, t = append(keep, name), nil
			continue
		}
		if sf, ok := t.FieldByName(name); ok && sf.Anonymous && len(sf.Index) == 1 {
			t = sf.Type // an embedded struct's Go name: not on the wire
			continue
		}
		keep = append(keep, name)
		t = jsonFieldType(t, name)
	}
	return strings.Join(keep, ".")
}

// jsonFieldType is the type of t's field that JSON names name, embedded
// structs flattened; nil when there is none.
func jsonFieldType(t reflect.Type, name string) reflect.Type {
	for _, f := range jsonFields(t) {
		if f.name == name {
			return f.typ
		}
	}
	return nil
}

// noIndexes matches the array indexes of a path.
var noIndexes = regexp.MustCompile(`\[\d+\]`)

// pathLevel is an object or array that a walk of a JSON document is in.
type pathLevel struct {
	obj, wantKey bool
	key          string // obj: the member's key
	index        int    // array: the element's index
}

// indexedPath is the path, with array indexes, of the value of p whose
// first token ends at end (where encoding/json reports a type error: after
// a literal, after an object's or array's opening); "" when none does.
func indexedPath(p []byte, end int64) string {
	var stack []pathLevel
	dec := json.NewDecoder(bytes.NewReader(p))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		n := len(stack)
		d, isDelim := tok.(json.Delim)
		closing := isDelim && (d == '}' || d == ']')
		isKey := n > 0 && stack[n-1].obj && stack[n-1].wantKey && !closing
		switch {
		case !isKey && !closing && dec.InputOffset() >= end:
			return levelsPath(stack)
		case isKey:
			stack[n-1].key, _ = tok.(string)
			stack[n-1].wantKey = false
		case isDelim && !closing:
			stack = append(stack, pathLevel{obj: d == '{', wantKey: d == '{'})
		case closing:
			stack = valueDone(stack[:n-1])
		default:
			stack = valueDone(stack)
		}
	}
}

// valueDone moves the innermost level past the value just read.
func valueDone(stack []pathLevel) []pathLevel {
	if n := len(stack); n > 0 {
		if stack[n-1].obj {
			stack[n-1].wantKey = true
		} else {
			stack[n-1].index++
		}
	}
	return stack
}

// levelsPath is stack's path: keys joined by dots, indexes in brackets.
func levelsPath(stack []pathLevel) string {
	var b strings.Builder
	for _, l := range stack {
		switch {
		case !l.obj:
			b.WriteString("[" + strconv.Itoa(l.index) + "]")
		case b.Len() > 0:
			b.WriteString("." + l.key)
		default:
			b.WriteString(l.key)
		}
	}
	return b.String()
}

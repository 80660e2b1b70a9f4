package rpc

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Unknown is a params field that the params type does not know: a client's
// misspelling (a model's "ofset") that decoding ignores.
type Unknown struct {
	// Field is the field's dotted path, e.g. "limits.read.ofset".
	Field string
	// Nearest is the known field at the same level closest to it in
	// spelling (its dotted path); "" when that level has none.
	Nearest string
}

// UnknownFields lists, sorted, the fields of params (a JSON object) that v
// (a struct, or a pointer to one, as DecodeParams decodes into) does not
// know, at every level of nested structs; fields of maps are anyone's.
// Params that are not an object have none.
func UnknownFields(params json.RawMessage, v any) []Unknown {
	t := reflect.TypeOf(v)
	if t == nil {
		return nil
	}
	var out []Unknown
	walkUnknown(params, t, "", &out)
	// workDoneToken is rpc's own param, read from every request (progress).
	return slices.DeleteFunc(out, func(u Unknown) bool { return u.Field == progressTokenField })
}

func walkUnknown(raw json.RawMessage, t reflect.Type, prefix string, out *[]Unknown) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return
	}
	fields := jsonFields(t)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ft, ok := lookupField(fields, k)
		if ok {
			walkUnknown(obj[k], ft, prefix+k+".", out)
			continue
		}
		u := Unknown{Field: prefix + k}
		if n := nearest(k, fields); n != "" {
			u.Nearest = prefix + n
		}
		*out = append(*out, u)
	}
}

// field is a JSON field of a struct type.
type field struct {
	name string
	typ  reflect.Type
}

// fieldCache holds jsonFields' answer per type: every request's params are
// checked against their type's fields (exactKeys, UnknownFields).
var fieldCache sync.Map // reflect.Type → []field

// jsonFields are t's fields as encoding/json names them, embedded structs
// flattened, in declaration order.
func jsonFields(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	fs := structFields(t)
	fieldCache.Store(t, fs)
	return fs
}

// structFields is jsonFields without the cache.
func structFields(t reflect.Type) []field {
	var fs []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || (!sf.IsExported() && !sf.Anonymous) {
			continue
		}
		if sf.Anonymous && name == "" {
			et := sf.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				fs = append(fs, structFields(et)...)
				continue
			}
		}
		if name == "" {
			name = sf.Name
		}
		fs = append(fs, field{name, sf.Type})
	}
	return fs
}

// lookupField finds the field named key exactly: the contract's field
// names are case-sensitive, and DecodeParams drops a key that matches one
// only by folding case (see exactKeys), which encoding/json would take.
func lookupField(fs []field, key string) (reflect.Type, bool) {
	for _, f := range fs {
		if f.name == key {
			return f.typ, true
		}
	}
	return nil, false
}

// exactKeys returns params with every object key that names a field of t
// only by folding case ("Path" for "path") removed, at every level of
// nested structs, so that encoding/json, which folds case, decodes only
// the fields named exactly; UnknownFields names the removed keys. Params
// with no such key, or that are not an object, come back as they are.
func exactKeys(params json.RawMessage, t reflect.Type) json.RawMessage {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || !mayFold(params, t) {
		return params
	}
	return dropFolded(params, t)
}

// dropFolded is exactKeys without mayFold's shortcut; t is a struct type.
func dropFolded(params json.RawMessage, t reflect.Type) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return params
	}
	fields := jsonFields(t)
	changed := false
	for k, v := range obj {
		if ft, ok := lookupField(fields, k); ok {
			if nv := exactKeys(v, ft); len(nv) != len(v) || string(nv) != string(v) {
				obj[k], changed = nv, true
			}
			continue
		}
		if slices.ContainsFunc(fields, func(f field) bool { return strings.EqualFold(f.name, k) }) {
			delete(obj, k)
			changed = true
		}
	}
	if !changed {
		return params
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return params
	}
	return out
}

// nearest is the field name closest to key by edit distance (ignoring
// case), the first declared among equals.
func nearest(key string, fs []field) string {
	best, bestD := "", -1
	for _, f := range fs {
		if d := editDistance(strings.ToLower(key), strings.ToLower(f.name)); bestD < 0 || d < bestD {
			best, bestD = f.name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// casings maps each field name of a struct type, at any depth, lowered, to
// the casings its fields have; cached per type.
var casings sync.Map // reflect.Type → map[string][]string

func typeCasings(t reflect.Type) map[string][]string {
	if m, ok := casings.Load(t); ok {
		return m.(map[string][]string)
	}
	m := map[string][]string{}
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || depth > 8 {
			return
		}
		for _, f := range jsonFields(t) {
			low := strings.ToLower(f.name)
			if !slices.Contains(m[low], f.name) {
				m[low] = append(m[low], f.name)
			}
			walk(f.typ, depth+1)
		}
	}
	walk(t, 0)
	casings.Store(t, m)
	return m
}

// mayFold reports whether some key of params could name a field of t only
// by folding case: a key whose lowered form is a field's name lowered and
// that is not that field's name, the only casing of it. It reads the keys
// off the bytes, without decoding, so that params with none (nearly all)
// cost exactKeys no decode; an escaped key counts as one.
func mayFold(params []byte, t reflect.Type) bool {
	m := typeCasings(t)
	var str stringScan
	start := 0
	for i, c := range params {
		was := str.in
		switch {
		case !str.step(c) || str.in && was: // outside a string, or within one
		case !was:
			start = i + 1 // an opening quote
		default: // a closing one
			j := i + 1
			for j < len(params) && (params[j] == ' ' || params[j] == '\t' || params[j] == '\n' || params[j] == '\r') {
				j++
			}
			if j == len(params) || params[j] != ':' {
				continue // a value, not a key
			}
			key := string(params[start:i])
			if strings.IndexByte(key, '\\') >= 0 {
				return true
			}
			if cs := m[strings.ToLower(key)]; len(cs) > 1 || len(cs) == 1 && cs[0] != key {
				return true
			}
		}
	}
	return false
}

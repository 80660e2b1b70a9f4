package outline

import "bytes"

// yamlScan outlines YAML by its keys at the top level (depth 1) and at the
// first level under each (depth 2), each with the lines its value spans,
// found by indentation: no parse, so a file of any size streams. Items of a
// top-level sequence ("- name: x") are entries of their own; documents
// (---) separate.
type yamlScan struct {
	lineSplitter
	c           collector
	top, sub    int
	topEnd      int64
	subEnd      int64
	childIndent int // indentation of depth 2 keys under the open top key, -1 unknown
	block       int // indentation of an open block scalar (| or >) key, -1 none
}

func newYAML(opt Options) *yamlScan {
	y := &yamlScan{c: collector{max: opt.MaxEntries, from: opt.FromLine}, top: -2, sub: -2, childIndent: -1, block: -1}
	y.fn = y.line
	return y
}

func (y *yamlScan) line(n int64, line []byte) {
	body, w := trimIndent(line)
	if len(body) == 0 || body[0] == '#' {
		return
	}
	if y.block >= 0 && w > y.block {
		y.extend(n)
		return
	}
	y.block = -1
	if w == 0 && (bytes.HasPrefix(body, []byte("---")) || bytes.HasPrefix(body, []byte("..."))) {
		y.closeSub()
		y.closeTop()
		return
	}
	key, isKey := yamlKey(body)
	switch {
	case w == 0:
		y.closeSub()
		y.closeTop()
		kind, name := "key", key
		if !isKey {
			kind, name = "item", string(body)
		}
		y.top = y.c.add(Entry{Line: n, EndLine: n, Depth: 1, Kind: kind, Name: clip(name)})
		y.topEnd, y.childIndent = n, -1
	case y.top == -2:
		return
	default:
		if y.childIndent < 0 {
			y.childIndent = w
		}
		if item := bytes.HasPrefix(body, []byte("- ")); w == y.childIndent && (isKey || item) {
			kind, name := "key", key
			if item {
				kind, name = "item", string(body[2:])
			}
			y.closeSub()
			y.sub = y.c.add(Entry{Line: n, EndLine: n, Depth: 2, Kind: kind, Name: clip(name)})
			y.subEnd = n
		}
		y.extend(n)
	}
	if isKey && yamlBlockScalar(body) {
		y.block = w
	}
}

func (y *yamlScan) extend(n int64) {
	y.topEnd = n
	if y.sub != -2 {
		y.subEnd = n
	}
}

func (y *yamlScan) closeSub() {
	if y.sub != -2 {
		y.c.end(y.sub, y.subEnd)
		y.sub = -2
	}
	y.subEnd = 0
}

func (y *yamlScan) closeTop() {
	if y.top != -2 {
		y.c.end(y.top, y.topEnd)
		y.top = -2
	}
}

// yamlKey returns the key of a "key: value" or "key:" line (also after
// "- "), unquoted.
func yamlKey(body []byte) (string, bool) {
	b := body
	if bytes.HasPrefix(b, []byte("- ")) {
		b = bytes.TrimLeft(b[2:], " ")
	}
	if len(b) > 0 && (b[0] == '"' || b[0] == '\'') {
		if i := bytes.IndexByte(b[1:], b[0]); i >= 0 && bytes.HasPrefix(b[i+2:], []byte(":")) {
			rest := b[i+3:]
			if len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' {
				return string(b[1 : i+1]), true
			}
		}
		return "", false
	}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case ':':
			if i+1 == len(b) || b[i+1] == ' ' || b[i+1] == '\t' {
				return string(bytes.TrimSpace(b[:i])), i > 0
			}
		case '#', '{', '[', '"', '\'':
			return "", false
		}
	}
	return "", false
}

// yamlBlockScalar says whether a key line opens a block scalar (| or >),
// whose lines may look like keys.
func yamlBlockScalar(body []byte) bool {
	i := bytes.Index(body, []byte(": "))
	if i < 0 {
		return false
	}
	v := bytes.TrimSpace(body[i+2:])
	return len(v) > 0 && (v[0] == '|' || v[0] == '>')
}

func (y *yamlScan) Finish(totalLines int64) *Outline {
	y.flush()
	y.closeSub()
	y.closeTop()
	return y.c.outline(YAML)
}

package outline

import "bytes"

// markdown outlines headings: ATX (# Title) and setext (a line underlined
// with = or -), skipping fenced code and a front matter block. A heading's
// section runs to the line before the next heading of its level or higher.
type markdown struct {
	lineSplitter
	c     collector
	open  [7]int // the entry index of the open heading of each level, -1 for none
	fence []byte // the open fence's marker, nil outside code
	front bool   // inside a front matter block (--- at line 1)

	prev     []byte // the previous line, when it may be a setext heading's text
	prevLine int64
	last     int64 // the last line seen
}

func newMarkdown(opt Options) *markdown {
	m := &markdown{c: collector{max: opt.MaxEntries, from: opt.FromLine}}
	for i := range m.open {
		m.open[i] = -2
	}
	m.fn = m.line
	return m
}

func (m *markdown) line(n int64, line []byte) {
	m.last = n
	body, indent := trimIndent(line)
	switch {
	case n == 1 && string(bytes.TrimRight(line, " \t")) == "---":
		m.front = true
		return
	case m.front:
		if t := string(bytes.TrimRight(line, " \t")); t == "---" || t == "..." {
			m.front = false
		}
		return
	case m.fence != nil:
		if indent < 4 && bytes.HasPrefix(body, m.fence) && len(bytes.Trim(body, string(m.fence[:1])+" \t")) == 0 {
			m.fence = nil
		}
		return
	case indent < 4 && (bytes.HasPrefix(body, []byte("```")) || bytes.HasPrefix(body, []byte("~~~"))):
		k := 3
		for k < len(body) && body[k] == body[0] {
			k++
		}
		m.fence = append([]byte(nil), body[:k]...)
		m.prev = nil
		return
	}
	if lvl, text := atx(body, indent); lvl > 0 {
		m.heading(n, lvl, text)
		m.prev = nil
		return
	}
	if lvl := setext(body, indent); lvl > 0 && m.prev != nil {
		m.heading(m.prevLine, lvl, string(m.prev))
		m.prev = nil
		return
	}
	if len(body) == 0 || indent >= 4 || isListOrQuote(body) {
		m.prev = nil
		return
	}
	m.prev, m.prevLine = append(m.prev[:0], body...), n
}

// heading opens a heading of level lvl at line n, closing the open sections
// of its level and deeper.
func (m *markdown) heading(n int64, lvl int, text string) {
	for l := lvl; l < len(m.open); l++ {
		if m.open[l] != -2 {
			m.c.end(m.open[l], n-1)
			m.open[l] = -2
		}
	}
	m.open[lvl] = m.c.add(Entry{Line: n, EndLine: n, Depth: lvl, Kind: "heading", Name: clip(text)})
}

func (m *markdown) Finish(totalLines int64) *Outline {
	m.flush()
	for l := range m.open {
		if m.open[l] != -2 {
			m.c.end(m.open[l], totalLines)
		}
	}
	return m.c.outline(Markdown)
}

// atx parses "## Title ##" at most 3 spaces in.
func atx(body []byte, indent int) (int, string) {
	if indent >= 4 || len(body) == 0 || body[0] != '#' {
		return 0, ""
	}
	lvl := 0
	for lvl < len(body) && body[lvl] == '#' {
		lvl++
	}
	if lvl > 6 || lvl < len(body) && body[lvl] != ' ' && body[lvl] != '\t' {
		return 0, ""
	}
	text := bytes.TrimSpace(body[lvl:])
	if t := bytes.TrimRight(text, "#"); len(t) == 0 || t[len(t)-1] == ' ' || t[len(t)-1] == '\t' {
		text = bytes.TrimSpace(t)
	}
	return lvl, string(text)
}

// setext says whether body underlines the line before it: 1 for ===, 2 for ---.
func setext(body []byte, indent int) int {
	t := bytes.TrimRight(body, " \t")
	if indent >= 4 || len(t) == 0 || (t[0] != '=' && t[0] != '-') {
		return 0
	}
	for _, b := range t {
		if b != t[0] {
			return 0
		}
	}
	if t[0] == '=' {
		return 1
	}
	return 2
}

func isListOrQuote(b []byte) bool {
	switch b[0] {
	case '>', '|':
		return true
	case '-', '*', '+':
		return len(b) > 1 && (b[1] == ' ' || b[1] == '\t')
	}
	return false
}

// trimIndent returns line without its leading blanks, and their width (a
// tab counts 4).
func trimIndent(line []byte) ([]byte, int) {
	w := 0
	for i, b := range line {
		switch b {
		case ' ':
			w++
		case '\t':
			w += 4 - w%4
		default:
			return line[i:], w
		}
	}
	return nil, w
}

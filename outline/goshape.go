package outline

// goShape measures Go source as it streams by, without parsing it: an
// upper bound of its tokens (each run of letters and digits one, each
// other character outside comments, strings and runes one) and its
// deepest nesting of brackets. go/ast's memory is some 50 bytes a token
// (a 16 MiB file of byte literals took 290 MiB) and its stack grows with
// the nesting (100,000 parentheses took 227 MiB before the parser gave
// up): both are known before the parse, in a pass that holds nothing.
type goShape struct {
	tokens   int64
	depth    int
	maxDepth int

	state    goState
	word     bool // inside a run of letters and digits
	slash    bool // a '/' that may start a comment
	star     bool // a '*' in a block comment, which may end it
	escaped  bool // a '\\' in a string or rune
	maxToks  int64
	maxNest  int
	exceeded bool // past maxToks or maxNest: the rest need not be read
}

type goState uint8

const (
	goCode goState = iota
	goLineComment
	goBlockComment
	goString
	goRaw
	goRune
)

func newGoShape(maxTokens int64, maxDepth int) *goShape {
	return &goShape{maxToks: maxTokens, maxNest: maxDepth}
}

// Write measures p, the bytes that follow those written before.
func (g *goShape) Write(p []byte) (int, error) {
	for _, c := range p {
		switch g.state {
		case goCode:
			g.code(c)
		case goLineComment:
			if c == '\n' {
				g.state = goCode
			}
		case goBlockComment:
			if g.star && c == '/' {
				g.state = goCode
			}
			g.star = c == '*'
		case goString, goRune:
			switch {
			case g.escaped:
				g.escaped = false
			case c == '\\':
				g.escaped = true
			case c == '"' && g.state == goString, c == '\'' && g.state == goRune, c == '\n':
				g.state = goCode // a newline ends a broken literal, as the scanner has it
			}
		case goRaw:
			if c == '`' {
				g.state = goCode
			}
		}
	}
	g.exceeded = g.tokens > g.maxToks || g.maxDepth > g.maxNest
	return len(p), nil
}

// code takes a byte of code.
func (g *goShape) code(c byte) {
	if g.slash {
		g.slash = false
		switch c {
		case '/':
			g.state = goLineComment
			g.tokens-- // the '/' counted was a comment's
			return
		case '*':
			g.state, g.star = goBlockComment, false
			g.tokens--
			return
		}
	}
	if c == '_' || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z' || c >= 0x80 {
		if !g.word {
			g.tokens++
			g.word = true
		}
		return
	}
	g.word = false
	switch c {
	case ' ', '\t', '\n', '\r':
	case '/':
		g.tokens++ // a division, unless a comment starts here
		g.slash = true
	case '"':
		g.tokens++
		g.state = goString
	case '\'':
		g.tokens++
		g.state = goRune
	case '`':
		g.tokens++
		g.state = goRaw
	case '(', '[', '{':
		g.tokens++
		g.depth++
		g.maxDepth = max(g.maxDepth, g.depth)
	case ')', ']', '}':
		g.tokens++
		g.depth = max(g.depth-1, 0)
	default:
		g.tokens++
	}
}

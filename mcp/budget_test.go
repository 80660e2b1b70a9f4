package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/protocol"
)

// buildCmd prints a 3,000-line build with one compiler error in its middle,
// then fails, as make would.
const buildCmd = `for i in $(seq 1 3000); do if [ $i = 1500 ]; then echo "src/main.c:12:5: error: 'foo' undeclared (first use in this function)"; else echo "[$i/3000] compiling pkg/mod$i/file.c"; fi; done; exit 2`

// denseLines is how many lines errorDense and manyKinds print: 60,000
// with TOOLD_LONG=1, 6,000 in the quick run (200 and 300 KB, still eight
// times the budget and more; the -race daemon's scans of them were the
// bulk of TestBudget's commands).
var denseLines = testenv.Size(6000, 60000)

// errorDense prints a log of denseLines lines, one in six an error.
var errorDense = fmt.Sprintf(`awk 'BEGIN{for(i=1;i<=%d;i++) if(i%%6==0) print "ERROR [db] query " i " failed: connection refused"; else print "INFO request " i " served in 3ms"}'`, denseLines)

// manyKinds prints a log of denseLines lines, one in three an error of one
// of twelve long shapes, ids and numbers among their words.
var manyKinds = fmt.Sprintf(`awk 'BEGIN{split("disk quota exceeded on volume|upstream replica refused the handshake|schema migration left the table locked|certificate chain could not be verified|queue consumer lagged behind|payment gateway answered with garbage|cache shard evicted every hot key|search index segment went missing|mail relay rejected the envelope|session store lost its primary|limiter tripped for the tenant|audit writer dropped the batch", m, "|"); for(i=1;i<=%d;i++) if(i%%3==0) printf "%%s ERROR: request %%d for tenant %%d failed, the worker pool was busy for %%d ms\n", m[(i/3)%%12+1], i, i*7, i%%1000; else print "INFO request " i " served in 3ms"}'`, denseLines)

// longLines prints lines of 40 bytes: 100,000 with TOOLD_LONG=1, 8,000
// (320 KB, thirteen times the budget, five times what a call that asks
// for 64 KiB is shown, more lines than maxLines 5000 and a page of 3,000
// show) in the quick run.
var longLines = fmt.Sprint("seq -f 'line %07g of output, forty bytes long' 1 ", testenv.Size(8000, 100000))

const buildError = "src/main.c:12:5: error: 'foo' undeclared (first use in this function)"

// startWith opens a session with a Server on a new daemon, set up by set.
func startWith(t *testing.T, set func(*Server)) *session {
	srv := NewServer("test", newDaemon(t).connect, testLogger(t))
	set(srv)
	return open(t, srv)
}

// TestStructuredFlag: by default tools declare no outputSchema and results
// carry no structuredContent (the text is what a model reads, once);
// Structured (toold mcp --structured) turns both on.
func TestStructuredFlag(t *testing.T) {
	t.Parallel()
	dm := newDaemon(t) // one daemon, a session (and a launcher) per server
	for _, structured := range []bool{false, true} {
		t.Run(fmt.Sprint("structured=", structured), func(t *testing.T) {
			srv := NewServer("test", dm.connect, testLogger(t))
			srv.Structured = structured
			s := open(t, srv)
			res, err := s.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range res.Tools {
				if (tool.OutputSchema != nil) != structured {
					t.Errorf("%s: outputSchema %v", tool.Name, tool.OutputSchema)
				}
			}
			dir := filepath.Dir(writeFile(t, "a.txt", "alpha\n"))
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"exec", map[string]any{"command": "echo hi"}},
				{"read", map[string]any{"path": filepath.Join(dir, "a.txt")}},
				{"grep", map[string]any{"pattern": "alpha", "path": dir}},
				{"ls", map[string]any{"path": dir}},
				{"process_list", nil},
				{"stats", nil},
			} {
				text, r := s.call(t, c.tool, c.args)
				if r.IsError || text == "" || len(r.Content) != 1 {
					t.Errorf("%s: %q (isError %v, %d contents)", c.tool, text, r.IsError, len(r.Content))
				}
				if (r.StructuredContent != nil) != structured {
					t.Errorf("%s: structuredContent %v", c.tool, r.StructuredContent)
				}
			}
		})
	}
}

// codexOutput is what codex gives its model for a tool result, as codex-rs
// builds it (protocol/src/models.rs, FunctionCallOutputPayload::from(&CallToolResult)):
// structuredContent, serialized, whenever present and not null; else, with
// no image, the content array serialized as JSON.
func codexOutput(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	wire, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
	}
	if err := json.Unmarshal(wire, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null" {
		return string(r.StructuredContent)
	}
	b, _ := json.Marshal(r.Content)
	return string(b)
}

// TestCodexReadsTheText models codex's choice: with --structured off, what
// codex gives the model holds the rendered text (the error line, the
// notice) and no JSON result; with it on, the JSON result in its place.
func TestCodexReadsTheText(t *testing.T) {
	t.Parallel()
	dm := newDaemon(t) // one daemon, a session per server
	for _, structured := range []bool{false, true} {
		srv := NewServer("test", dm.connect, testLogger(t))
		srv.Structured = structured
		s := open(t, srv)
		text, res := s.call(t, "exec", map[string]any{"command": buildCmd})
		got := codexOutput(t, res)
		var items []struct{ Type, Text string }
		json.Unmarshal([]byte(got), &items)
		switch {
		case !structured && (len(items) != 1 || items[0].Text != text || !strings.Contains(items[0].Text, buildError) || strings.Contains(got, `"exitCode"`)):
			t.Errorf("structured off: codex gives the model %.300q", got)
		case structured && (!strings.Contains(got, `"exitCode":2`) || strings.Contains(got, "exit status 2\n")):
			t.Errorf("structured on: codex gives the model %.300q", got)
		}
	}
}

// TestBudget: at toold mcp's default limits every result's text is at most
// protocol.MCPResultBytes whatever the output, and still shows what
// matters; a call that gives a size gets what it asks for.
func TestBudget(t *testing.T) {
	t.Parallel() // a daemon of its own; its commands run beside the other waits
	s, _ := start(t)
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	var b strings.Builder
	// 5 MB with TOOLD_LONG=1, 256 KB (still 10 times the budget, 800
	// lines with "needle 3") in the quick run.
	for i := 0; b.Len() < testenv.Size(256<<10, 5<<20); i++ {
		fmt.Fprintf(&b, "line %d of a five megabyte file, needle %d\n", i, i%7)
	}
	if err := os.WriteFile(big, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The tree's 600 empty files are names of one: find and ls list
	// names, and a new inode cost a millisecond of system CPU.
	tree, empty := filepath.Join(dir, "tree"), filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 600 {
		p := filepath.Join(tree, fmt.Sprintf("directory-with-a-long-name-%03d", i/50), fmt.Sprintf("a-file-with-a-rather-long-name-%04d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Link(empty, p); err != nil {
			t.Fatal(err)
		}
	}
	oneLine := `printf '{"data":"'; head -c 3000000 /dev/zero | tr '\0' x; printf '"}\n'`
	out, _ := s.call(t, "exec", map[string]any{"command": longLines, "maxBytes": 1000})
	var spool string
	if m := regexp.MustCompile(`page spool=(\S+)`).FindStringSubmatch(out); m != nil {
		spool = m[1]
	}
	// seq's million lines (6.9 MB) with TOOLD_LONG=1, 50,000 (290 KB,
	// still 12 times the budget) in the quick run: the detector's scan of
	// them under -race was a third of the test.
	seqN := testenv.Size(50000, 1000000)
	seq := fmt.Sprint("seq 1 ", seqN)
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		want       []string // in the text
		over       bool     // asks for more: may be over the budget
	}{
		{"build", "exec", map[string]any{"command": buildCmd}, []string{buildError, "exit status 2"}, false},
		{"seq", "exec", map[string]any{"command": seq}, []string{"\n1\n", fmt.Sprintf("\n%d\n", seqN), "omitted"}, false},
		{"both streams", "exec", map[string]any{"command": seq + "; " + seq + " >&2"}, []string{"--- stderr ---"}, false},
		{"error-dense", "exec", map[string]any{"command": errorDense}, []string{"failed: connection refused",
			testenv.Size(`[kind of failure: 1,000× "ERROR [db] query <*> failed: connection refused" lines 6-6000]`,
				`[kind of failure: 10,000× "ERROR [db] query <*> failed: connection refused" lines 6-60000]`)}, false},
		{"error-dense, many kinds", "exec", map[string]any{"command": manyKinds}, []string{"could not be verified",
			testenv.Size(`[kind of failure: 167× "certificate chain could not be verified ERROR: request <*> for tenant <*> failed, the worker pool was busy for <*> ms" lines 9-5985]`,
				`[kind of failure: 1,667× "certificate chain could not be verified ERROR: request <*> for tenant <*> failed, the worker pool was busy for <*> ms" lines 9-59985]`)}, false},
		{"one-line JSON", "exec", map[string]any{"command": oneLine}, []string{`{"data":"xxx`}, false},
		{"read big file", "read", map[string]any{"path": big}, []string{"     1\tline 0 of", "offset="}, false},
		{"readBytes big file", "readBytes", map[string]any{"path": big}, []string{"line 0 of", "startByte="}, false},
		{"grep many", "grep", map[string]any{"pattern": "needle 3", "path": big}, []string{"needle 3"}, false},
		{"grep context", "grep", map[string]any{"pattern": "needle", "path": big, "context": 5}, []string{"needle"}, false},
		{"find many", "find", map[string]any{"path": tree}, []string{"a-file-with"}, false},
		{"ls", "ls", map[string]any{"path": filepath.Join(tree, "directory-with-a-long-name-000")}, []string{"a-file-with"}, false},
		// A line or match count alone asks for lines, not bytes: the budget stays.
		{"read limit", "read", map[string]any{"path": big, "limit": 3000}, []string{"     1\tline 0 of", "offset="}, false},
		{"page limit", "page", map[string]any{"spool": "SPOOL", "limit": 3000}, []string{"offset="}, false},
		{"exec maxLines", "exec", map[string]any{"command": longLines, "maxLines": 5000}, []string{"omitted"}, false},
		{"grep limit", "grep", map[string]any{"pattern": "needle 3", "path": big, "limit": 5000}, []string{"needle 3"}, false},
		{"find limit", "find", map[string]any{"path": tree, "limit": 600}, nil, true},
		{"asks for more", "exec", map[string]any{"command": longLines, "maxBytes": 65536}, nil, true},
		{"read asks for more", "read", map[string]any{"path": big, "maxBytes": 65536}, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // calls of one session, each on its own
			if c.args["spool"] == "SPOOL" {
				c.args["spool"] = spool
			}
			text, res := s.call(t, c.tool, c.args)
			if res.IsError {
				t.Fatalf("error: %s", text)
			}
			if n := len(text); c.over != (n > protocol.MCPResultBytes) {
				t.Errorf("%d bytes of text (budget %d, asked for more: %v)", n, protocol.MCPResultBytes, c.over)
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%.2000s\n...%s", w, text, text[max(0, len(text)-3000):])
				}
			}
			if strings.HasPrefix(c.name, "error-dense") && strings.Count(text, "[kind of failure: ") != map[string]int{"error-dense": 1, "error-dense, many kinds": 10}[c.name] {
				t.Errorf("no kinds of failure in:\n%.2000s", text)
			}
			t.Logf("%d bytes", len(text))
		})
	}
}

// TestBudgetOff: with no budget (the limit flags set the session's) no
// sizes are sent and nothing is fitted.
func TestBudgetOff(t *testing.T) {
	t.Parallel()
	s := startWith(t, func(srv *Server) { srv.Budget = 0 })
	text, _ := s.call(t, "exec", map[string]any{"command": longLines})
	if len(text) <= protocol.MCPResultBytes {
		t.Errorf("%d bytes: the daemon's default limits give more", len(text))
	}
}

// TestBudgetFits: a preview over a (small) budget is fitted through the
// server: the error line stays, the lines given up are named with the page
// call that reads them, and that call reads them.
func TestBudgetFits(t *testing.T) {
	t.Parallel()
	const budget = 1500 // under the 2 KB the preview of buildCmd is at default limits
	s := startWith(t, func(srv *Server) { srv.Budget = budget })
	text, _ := s.call(t, "exec", map[string]any{"command": buildCmd})
	if len(text) > budget || !strings.Contains(text, buildError) || !strings.HasSuffix(text, "give maxBytes for more]") {
		t.Fatalf("%d bytes:\n%s", len(text), text)
	}
	m := regexp.MustCompile(`\[\.\.\. lines (\d+)-(\d+) omitted; page spool=(\S+) offset=(\d+) to read them \.\.\.\]`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no gap in\n%s", text)
	}
	from, _ := strconv.Atoi(m[1])
	page, _ := s.call(t, "page", map[string]any{"spool": m[3], "offset": from, "limit": 1})
	if want := fmt.Sprintf("%6d\t[%d/3000] compiling pkg/mod%d/file.c\n", from, from, from); !strings.HasPrefix(page, want) {
		t.Errorf("page: %q, want %q", page, want)
	}
}

// TestIfChangedFitted: a first read with ifChanged whose window is cut to
// fit the budget shows its lines (the cut window is what the session saw),
// and a re-read of it is unchanged, while the lines past it, never shown,
// are not.
func TestIfChangedFitted(t *testing.T) {
	t.Parallel()
	path := fiveThousandLines(t)
	s, _ := start(t)
	read := func(args map[string]any) string {
		args["path"], args["ifChanged"] = path, true
		text, r := s.call(t, "read", args)
		if r.IsError || len(text) > protocol.MCPResultBytes {
			t.Fatalf("%v: %d bytes, isError %v", args, len(text), r.IsError)
		}
		return text
	}
	text := read(map[string]any{"offset": 1})
	m := regexp.MustCompile(`Showing lines 1-(\d+) of 5000`).FindStringSubmatch(text)
	if m == nil || strings.Contains(text, "unchanged") || !strings.Contains(text, "abcdefghi1\n") {
		t.Fatalf("first read: %.300q ... %q", text, text[max(0, len(text)-300):])
	}
	end, _ := strconv.Atoi(m[1])
	if text := read(map[string]any{"offset": 1, "limit": end}); !strings.Contains(text, fmt.Sprintf("Lines 1-%d unchanged", end)) {
		t.Errorf("re-read of lines 1-%d: %.300q", end, text)
	}
	if text := read(map[string]any{"offset": end + 1, "limit": 10}); strings.Contains(text, "unchanged") || !strings.Contains(text, fmt.Sprintf("abcdefghi%d\n", end+1)) {
		t.Errorf("lines past the first read: %.300q", text)
	}
}

// TestPlainReadFitted: a plain read through toold mcp is remembered as the
// model was shown it: lines the fitting read but the model was not shown
// (the budget cut the window) are not "unchanged" on a later ifChanged.
func TestPlainReadFitted(t *testing.T) {
	t.Parallel()
	path := fiveThousandLines(t)
	s, _ := start(t)
	text, r := s.call(t, "read", map[string]any{"path": path, "offset": 1})
	m := regexp.MustCompile(`Showing lines 1-(\d+) of 5000`).FindStringSubmatch(text)
	if r.IsError || m == nil || len(text) > protocol.MCPResultBytes {
		t.Fatalf("first read: %d bytes %.300q", len(text), text)
	}
	end, _ := strconv.Atoi(m[1])
	text, _ = s.call(t, "read", map[string]any{"path": path, "offset": 1, "limit": end, "ifChanged": true})
	if !strings.Contains(text, fmt.Sprintf("Lines 1-%d unchanged", end)) {
		t.Errorf("re-read of the lines shown, 1-%d: %.300q", end, text)
	}
	text, _ = s.call(t, "read", map[string]any{"path": path, "offset": end + 1, "limit": 10, "ifChanged": true})
	if strings.Contains(text, "unchanged") || !strings.Contains(text, fmt.Sprintf("abcdefghi%d\n", end+1)) {
		t.Errorf("lines the fitting read but the model was not shown: %.300q", text)
	}
}

// fiveThousandLines writes a file of 5,000 numbered lines, more than the
// MCP budget shows of it, and returns its path.
func fiveThousandLines(t *testing.T) string {
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "abcdefghi%d\n", i)
	}
	return writeFile(t, "f.txt", b.String())
}

package mcp

import (
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRenderWindow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, json, want string
	}{
		{"lines and notice",
			`{"content":"a\nb\n","startLine":1,"notice":"[Showing lines 1-2 of 5. Use offset=3 to continue]"}`,
			"     1\ta\n     2\tb\n[Showing lines 1-2 of 5. Use offset=3 to continue]"},
		{"numbered from startLine, no notice",
			`{"content":"x\ny\n","startLine":99999,"notice":null}`,
			" 99999\tx\n100000\ty"},
		{"CRLF kept out of the lines",
			`{"content":"a\r\nb\r\n","startLine":3}`,
			"     3\ta\n     4\tb"},
		{"a CR inside a line stays",
			`{"content":"a\rb\n","startLine":1}`,
			"     1\ta\rb"},
		{"last line without newline",
			`{"content":"a\nb","startLine":1}`,
			"     1\ta\n     2\tb"},
		{"empty lines are numbered",
			`{"content":"\n\n","startLine":1}`,
			"     1\t\n     2\t"},
		{"partial line is one line",
			`{"content":"abcdef","startLine":7,"partialLine":true,"notice":"[Line 7 is long]"}`,
			"     7\tabcdef\n[Line 7 is long]"},
		{"empty window: the notice alone",
			`{"content":"","startLine":10,"notice":"[Offset 10 is past the end]"}`,
			"[Offset 10 is past the end]"},
		{"binary: the notice alone",
			`{"content":"","startLine":1,"binary":true,"notice":"[Binary file]"}`,
			"[Binary file]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := render("read", json.RawMessage(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			if len(c) != 1 {
				t.Fatalf("got %d contents, want 1", len(c))
			}
			if got := c[0].(*sdk.TextContent).Text; got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestRenderImage(t *testing.T) {
	t.Parallel()
	c, err := render("read", json.RawMessage(`{"content":"","startLine":1,"image":{"mimeType":"image/png","data":"AAEC"},"notice":"[Image file]"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c) != 2 {
		t.Fatalf("got %d contents, want image and notice", len(c))
	}
	img, ok := c[0].(*sdk.ImageContent)
	if !ok || img.MIMEType != "image/png" || string(img.Data) != "\x00\x01\x02" {
		t.Errorf("image: got %#v", c[0])
	}
	if txt, ok := c[1].(*sdk.TextContent); !ok || txt.Text != "[Image file]" {
		t.Errorf("notice: got %#v", c[1])
	}
	if _, err := render("read", json.RawMessage(`{"image":{"mimeType":"image/png","data":"!!"}}`)); err == nil {
		t.Error("bad base64: no error")
	}
}

func TestRenderExec(t *testing.T) {
	t.Parallel()
	const empty = `{"head":"","tail":"","totalBytes":0,"omitted":null,"spool":null}`
	tests := []struct {
		name, json, want string
	}{
		{"whole output",
			`{"exitCode":0,"stdout":{"head":"hi\n","tail":"","totalBytes":3},"stderr":` + empty + `}`,
			"exit status 0\n--- stdout ---\nhi"},
		{"no output",
			`{"exitCode":3,"stdout":` + empty + `,"stderr":` + empty + `}`,
			"exit status 3"},
		{"head, omitted, tail, notice",
			`{"exitCode":0,"stdout":{"head":"1\n2\n","tail":"99\n100\n","totalBytes":292,
			  "omitted":{"fromLine":3,"toLine":98,"bytes":278},"spool":{"id":"ab12"}},"stderr":` + empty + `,
			  "notice":"[stdout: 100 lines]"}`,
			"exit status 0\n--- stdout ---\n1\n2\n[... lines 3-98 omitted (278 B); page spool=ab12 offset=3 to read them ...]\n99\n100\n[stdout: 100 lines]"},
		{"highlights: each gap and group in order, groups numbered as cat -n",
			`{"exitCode":2,"stdout":{"head":"1\n2\n","tail":"99\n100\n","totalBytes":292,
			  "omitted":{"fromLine":3,"toLine":98,"bytes":278},"spool":{"id":"ab12"},
			  "highlights":[{"fromLine":40,"toLine":41,"text":"error: x\n  at y\n"},{"fromLine":42,"toLine":42,"text":"FAIL\n"},{"fromLine":97,"toLine":98,"text":"a\r\nb"}]},"stderr":` + empty + `}`,
			"exit status 2\n--- stdout ---\n1\n2\n" +
				"[... lines 3-39 omitted; page spool=ab12 offset=3 to read them ...]\n" +
				"    40\terror: x\n    41\t  at y\n    42\tFAIL\n" +
				"[... lines 43-96 omitted; page spool=ab12 offset=43 to read them ...]\n" +
				"    97\ta\n    98\tb\n99\n100"},
		{"highlights with their reasons: a line before each group says why it is shown",
			`{"exitCode":2,"stdout":{"head":"1\n","tail":"100\n","totalBytes":292,
			  "omitted":{"fromLine":2,"toLine":99,"bytes":278},"spool":{"id":"ab12"},
			  "highlights":[{"fromLine":40,"toLine":41,"text":"error: x\n  at y\n","reason":"error"},{"fromLine":50,"toLine":50,"text":"bad CRC\n","reason":"rare"},
			  {"fromLine":60,"toLine":60,"text":"warning: z\n","reason":"warning"},{"fromLine":99,"toLine":99,"text":"gave up\n","reason":"exit"}]},"stderr":` + empty + `}`,
			"exit status 2\n--- stdout ---\n1\n" +
				"[... lines 2-39 omitted; page spool=ab12 offset=2 to read them ...]\n" +
				"[lines 40-41: an error]\n    40\terror: x\n    41\t  at y\n" +
				"[... lines 42-49 omitted; page spool=ab12 offset=42 to read them ...]\n" +
				"[line 50: unusual here: a shape seen once or twice among repeats]\n    50\tbad CRC\n" +
				"[... lines 51-59 omitted; page spool=ab12 offset=51 to read them ...]\n" +
				"[line 60: a warning]\n    60\twarning: z\n" +
				"[... lines 61-98 omitted; page spool=ab12 offset=61 to read them ...]\n" +
				"[line 99: what came before the failure]\n    99\tgave up\n100"},
		{"omitted without a spool",
			`{"exitCode":0,"stdout":{"head":"1\n","tail":"9\n","totalBytes":2048,
			  "omitted":{"fromLine":2,"toLine":8,"bytes":2044}},"stderr":` + empty + `}`,
			"exit status 0\n--- stdout ---\n1\n[... lines 2-8 omitted (2.0 KB) ...]\n9"},
		{"both streams, last line without newline",
			`{"exitCode":1,"stdout":{"head":"out","totalBytes":3},"stderr":{"head":"err\n","totalBytes":4}}`,
			"exit status 1\n--- stdout ---\nout\n--- stderr ---\nerr"},
		{"killed by a signal",
			`{"exitCode":null,"signal":"SIGKILL","stdout":` + empty + `,"stderr":` + empty + `}`,
			"killed by SIGKILL"},
		{"timed out",
			`{"exitCode":null,"signal":"SIGTERM","timedOut":true,"stdout":` + empty + `,"stderr":` + empty + `,"notice":"[Timed out after 1s]"}`,
			"timed out\n[Timed out after 1s]"},
		{"cancelled",
			`{"exitCode":null,"signal":"SIGTERM","cancelled":true,"stdout":` + empty + `,"stderr":` + empty + `}`,
			"cancelled"},
		{"binary stream",
			`{"exitCode":0,"stdout":{"binary":true,"totalBytes":4096,"spool":{"id":"cd34"}},"stderr":` + empty + `}`,
			"exit status 0\n--- stdout ---\n[binary output, 4.0 KB: not shown; the bytes are in spool=cd34]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := render("exec", json.RawMessage(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			if got := c[0].(*sdk.TextContent).Text; got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestRenderOther(t *testing.T) {
	t.Parallel()
	c, err := render("stats", json.RawMessage(`{"sessions":1,"cache":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c[0].(*sdk.TextContent).Text, "{\n  \"sessions\": 1,\n  \"cache\": {}\n}"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, m := range []string{"read", "exec", "stats", "grep", "find", "ls", "process/kill", "process/write"} {
		if _, err := render(m, json.RawMessage(`[`)); err == nil {
			t.Errorf("%s: bad JSON gave no error", m)
		}
	}
}

// TestRenderProcessTools: process/kill and process/write read as a line of
// text, as process/list does, not as JSON.
func TestRenderProcessTools(t *testing.T) {
	t.Parallel()
	tests := []renderCase{
		{"process/kill", `{"id":"p1","command":"sleep 9","running":false,"exitCode":null,"signal":"SIGTERM","startedMs":0}`,
			"p1  killed by SIGTERM  started 1970-01-01 00:00:00Z  sleep 9"},
		{"process/write", `{"written":1,"notice":null}`, "[Wrote 1 byte to the process's stdin]"},
		{"process/write", `{"written":6,"notice":"[stdin closed]"}`, "[Wrote 6 bytes to the process's stdin]\n[stdin closed]"},
	}
	checkRendered(t, tests)
}

func TestRenderSearch(t *testing.T) {
	t.Parallel()
	tests := []renderCase{
		{"grep", `{"files":[],"totalMatches":0,"notice":"[No matches]"}`, "[No matches]"},
		{"grep", `{"files":[{"path":"a","matches":[{"line":2,"text":"x","before":["w"],"after":[]},{"line":3,"text":"y","before":[],"after":["z"]}],"count":2}]}`,
			"a-1-w\na:2:x\na:3:y\na-4-z"},
		{"find", `{"entries":["a/","a/b.go"],"total":3,"limitReached":true,"notice":"[2 results limit reached]"}`, "a/\na/b.go\n[2 results limit reached]"},
		{"ls", `{"entries":["l -> t"],"total":1}`, "l -> t"},
	}
	checkRendered(t, tests)
}

// renderCase is a method's JSON result and the text render makes of it.
type renderCase struct{ method, json, want string }

func checkRendered(t *testing.T, tests []renderCase) {
	t.Helper()
	for _, tt := range tests {
		c, err := render(tt.method, json.RawMessage(tt.json))
		if err != nil {
			t.Fatal(err)
		}
		if got := c[0].(*sdk.TextContent).Text; got != tt.want {
			t.Errorf("%s %s: got %q, want %q", tt.method, tt.json, got, tt.want)
		}
	}
}

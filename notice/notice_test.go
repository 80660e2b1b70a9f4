package notice

import (
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/truncate"
)

func win(f WindowFacts) func() string { return func() string { return Window(f) } }

func ex(f ExecFacts) func() string { return func() string { return Exec(f) } }

func gr(f GrepFacts) func() string { return func() string { return Grep(f) } }

func ptr[T any](v T) *T { return &v }

// withReasons is s with one-line highlights at the given lines, each of
// the reason after it.
func withReasons(s protocol.Stream, at ...any) protocol.Stream {
	for i := 0; i+1 < len(at); i += 2 {
		n := int64(at[i].(int))
		s.Highlights = append(s.Highlights, protocol.Highlight{FromLine: n, ToLine: n, Text: "x\n", Reason: at[i+1].(string)})
	}
	return s
}

// withHighlights is s with highlights of the given line ranges.
func withHighlights(s protocol.Stream, left int, ranges ...int64) protocol.Stream {
	for i := 0; i+1 < len(ranges); i += 2 {
		s.Highlights = append(s.Highlights, protocol.Highlight{FromLine: ranges[i], ToLine: ranges[i+1], Text: "x\n"})
	}
	s.HighlightsOmitted = left
	return s
}

// withKinds is s with kinds ks.
func withKinds(s protocol.Stream, ks ...protocol.Kind) protocol.Stream {
	s.Kinds = ks
	return s
}

// TestMessages shows every message toold can say to a model, one row each:
// window notices, file notices, exec notices and the lines toold mcp renders.
func TestMessages(t *testing.T) {
	spool := &protocol.SpoolRef{ID: "ab12", Path: "/tmp/s/ab12.stdout", Bytes: 3 << 20}
	capped := &protocol.SpoolRef{ID: "ab12", Path: "/tmp/s/ab12.stdout", Bytes: 100 << 20, Capped: true}
	omitted := &protocol.Omitted{FromLine: 1001, ToLine: 4000, Bytes: 30 << 10}
	long := protocol.Stream{TotalLines: 5000, TotalBytes: 50 << 10, Omitted: omitted, Truncated: true, Spool: spool}
	tests := []struct {
		name string
		say  func() string
		want string
	}{
		{"whole file", win(WindowFacts{StartLine: 1, EndLine: 3, TotalLines: 3, TotalBytes: 10}), ""},
		{"by lines", win(WindowFacts{StartLine: 1, EndLine: 2000, TotalLines: 5000, TotalBytes: 1 << 20, TruncatedBy: protocol.ByLines}),
			"[Showing lines 1-2000 of 5000. Use offset=2001 to continue]"},
		{"by bytes", win(WindowFacts{StartLine: 11, EndLine: 20, TotalLines: 50, TotalBytes: 1 << 20, TruncatedBy: protocol.ByBytes, MaxBytes: 100}),
			"[Showing lines 11-20 of 50 (100-byte limit). Use offset=21 to continue]"},
		{"past end", win(WindowFacts{StartLine: 9, EndLine: 8, TotalLines: 3, TotalBytes: 10, PastEnd: true}),
			"[Offset 9 is past the end: the file has 3 lines. Use offset=1 to 3]"},
		{"empty", win(WindowFacts{StartLine: 1}), "[The file is empty: 0 lines]"},
		{"bytes", win(WindowFacts{ByteMode: true, StartLine: 1, EndLine: 7, TotalLines: 70, StartByte: 0, EndByte: 100, TotalBytes: 1000, TruncatedBy: protocol.ByBytes}),
			"[Showing bytes 0-100 of 1000 (lines 1-7 of 70). Use startByte=100 to continue]"},
		{"partial", win(WindowFacts{StartLine: 2, EndLine: 2, TotalLines: 3, StartByte: 10, EndByte: 51210, TotalBytes: 6 << 20, TruncatedBy: protocol.ByBytes, Partial: true, PartialLineBytes: 5 << 20, PartialLineEnd: 10 + 5<<20, MaxBytes: 51200}),
			"[Line 2 is 5.0 MB, longer than the 51200-byte window: showing bytes 10-51210 of it. Use readBytes startByte=51210 maxBytes=51200 to continue the line, or offset=3 to skip it]"},
		{"partial of a spool", win(WindowFacts{ByteMode: true, StartLine: 2, EndLine: 2, TotalLines: 2, StartByte: 10, EndByte: 110, TotalBytes: 1000, TruncatedBy: protocol.ByBytes, Partial: true, PartialLineBytes: 990, PartialLineEnd: 1000, MaxBytes: 100, ByteCall: "page spool=ab12"}),
			"[Line 2 is 990 B, longer than the 100-byte window: showing bytes 10-110 of it. Use page spool=ab12 startByte=110 maxBytes=100 to continue the line]"},
		{"the end of a long line", win(WindowFacts{ByteMode: true, StartLine: 2, EndLine: 2, TotalLines: 3, StartByte: 900, EndByte: 1000, TotalBytes: 1200, TruncatedBy: protocol.ByBytes, Partial: true, PartialLineBytes: 990, PartialLineEnd: 1000, MaxBytes: 100}),
			"[Showing bytes 900-1000, the end of line 2 (990 B). Use startByte=1000 to continue]"},
		{"the end of the last line", win(WindowFacts{ByteMode: true, StartLine: 2, EndLine: 2, TotalLines: 2, StartByte: 900, EndByte: 1000, TotalBytes: 1000, Partial: true, PartialLineBytes: 990, PartialLineEnd: 1000, MaxBytes: 100}),
			"[Showing bytes 900-1000, the end of line 2 (990 B)]"},
		{"clipped", win(WindowFacts{StartLine: 1, EndLine: 3, TotalLines: 3, TotalBytes: 5000, Clipped: 1, MaxLineChars: 2000, ClippedLine: 2, ClippedStart: 4, ClippedLen: 4000, MaxReadBytes: 262144}),
			"[1 line clipped at 2000 characters; to read line 2 whole use readBytes startByte=4 maxBytes=4000]"},
		{"past end by bytes", func() string { return PastEndBytes(500, 100) },
			"[startByte 500 is past the end: the file has 100 bytes. Use startByte=0 to 99]"},
		{"image too large", func() string { return ImageTooLarge("image/png", 6<<20, protocol.MaxImageBytes) },
			"[Image file (image/png, 6.0 MB): too large to show; images up to 5.0 MB are returned]"},
		{"image", func() string { return ImageReturned("image/png", 812) }, "[Image file (image/png, 812 B): returned in image]"},
		{"outline", func() string {
			return Outline(OutlineFacts{Format: "go", Shown: 219, Total: 219, TotalLines: 4073, TotalBytes: 131179, Call: "read",
				ExampleLine: 1990, ExampleEndLine: 2180, ExampleName: "(*conn).serve"})
		}, "[Outline (go) of 4073 lines, 128.1 KB: 219 entries. To read an entry use read offset=LINE limit=ENDLINE-LINE+1, e.g. read offset=1990 limit=191 for (*conn).serve]"},
		{"outline cut, of a log", func() string {
			return Outline(OutlineFacts{Format: "log", Shown: 20, Total: 24, TotalLines: 9 << 20, TotalBytes: 1 << 30, MaxBytes: 8192, MaxWindowBytes: 262144, Truncated: true,
				Call: "page spool=ab12", ExampleLine: 1, ExampleEndLine: 400000, ExampleName: "2024-05-01 00:00:00–00:59:59",
				Summary: "120 ERROR/FATAL lines; most in 2024-05-01 03:00:00–03:59:59 (100, lines 1200001-1600000)"})
		}, "[Outline (log) of 9437184 lines, 1.0 GB: 24 entries, 20 shown (8192-byte limit; the deepest entries are left out first; maxBytes=262144 shows more). To read an entry use page spool=ab12 offset=LINE limit=ENDLINE-LINE+1, e.g. page spool=ab12 offset=1 limit=400000 for 2024-05-01 00:00:00–00:59:59. 120 ERROR/FATAL lines; most in 2024-05-01 03:00:00–03:59:59 (100, lines 1200001-1600000)]"},
		{"outline, a page of it", func() string {
			return Outline(OutlineFacts{Format: "markdown", Shown: 60, Total: 4000, TotalLines: 10000, TotalBytes: 60000, MaxBytes: 4096, MaxWindowBytes: 262144,
				Truncated: true, Call: "read", ExampleLine: 301, ExampleEndLine: 305, ExampleName: "Part 60", FromLine: 301, Next: 601})
		}, "[Outline (markdown) of 10000 lines, 58.6 KB: 4000 entries; those from line 301 on: 60 shown (4096-byte limit; the deepest entries are left out first; maxBytes=262144 shows more). To read an entry use read offset=LINE limit=ENDLINE-LINE+1, e.g. read offset=301 limit=5 for Part 60. For the entries from line 601 on use read outline=true offset=601]"},
		{"outline by indent, no ctags", func() string {
			return Outline(OutlineFacts{Format: "indent", Shown: 2, Total: 2, TotalLines: 3, TotalBytes: 40, Call: "read", ExampleLine: 1, ExampleEndLine: 3, ExampleName: "class A:", CtagsMissing: true})
		}, "[Outline (indent) of 3 lines, 40 B: 2 entries. To read an entry use read offset=LINE limit=ENDLINE-LINE+1, e.g. read offset=1 limit=3 for class A:. Install Universal Ctags (apt-get install universal-ctags, brew install universal-ctags) for a symbol outline]"},
		{"outline of one long line", func() string {
			return Outline(OutlineFacts{Format: "json", Shown: 22, Total: 9000, TotalLines: 1, TotalBytes: 300000, MaxBytes: 1500, MaxWindowBytes: 262144,
				Truncated: true, Call: "read", ExampleLine: 1, ExampleEndLine: 1, ExampleName: "key0000",
				ExampleBytes: 300000, ByteCall: "readBytes", ReadBytesMax: 262144})
		}, "[Outline (json) of 1 line, 293.0 KB: 9000 entries, 22 shown (1500-byte limit; the deepest entries are left out first; maxBytes=262144 shows more). To read an entry use read offset=LINE limit=ENDLINE-LINE+1, e.g. for key0000, on line 1 of 293.0 KB: readBytes startByte=0 maxBytes=262144, then startByte=262144 and on (2 calls)]"},
		{"outline entries left on one line", func() string {
			return OutlineLongLine(LongLine{Line: 1, Bytes: 99000, ByteCall: "page spool=s1", MaxBytes: 1500, MaxWindowBytes: 262144})
		}, "[The entries not shown on line 1 are on a line of 96.7 KB that pages of the outline cannot split: maxBytes=262144 shows more of them; read the line by bytes with page spool=s1 startByte=0 maxBytes=99000]"},
		{"outline empty", func() string { return OutlineEmpty("markdown", 12, "read") },
			"[No outline entries found (markdown) in 12 lines. Use read offset=LINE limit=N to read a range]"},
		{"outline entry", func() string {
			return OutlineEntry(protocol.OutlineEntry{Line: 1990, EndLine: 2180, Depth: 1, Kind: "method", Name: "(*conn).serve"})
		}, "1990-2180 method (*conn).serve"},
		{"outline entry, a log bucket", func() string {
			return OutlineEntry(protocol.OutlineEntry{Line: 101, EndLine: 200, Depth: 2, Kind: "time", Name: "2024-05-01 03:00:00–03:59:59",
				Lines: 100, Levels: map[string]int64{"ERROR": 7, "INFO": 93}, Kinds: []protocol.Kind{{Text: "request # failed", Count: 7, FirstLine: 120, LastLine: 190}}})
		}, "  101-200 time 2024-05-01 03:00:00–03:59:59 (100 lines, ERROR 7, e.g. request # failed ×7, lines 120-190)"},
		{"large file over MCP", func() string { return LargeFile(300<<10, 100, 7512, "") },
			"[The file is 300.0 KB, 7512 lines: above are its outline and lines 1-100. Read the lines you need with read offset=N limit=M, e.g. an entry's lines]"},
		{"large file of one long line over MCP", func() string { return LargeFileLongLine(165780, 1, 16384, "") },
			"[The file is 161.9 KB, 1 line: above is its outline. Line 1 alone is longer than a window: read it in slices with readBytes startByte=0 maxBytes=16384]"},
		{"large spool over MCP", func() string { return LargeFile(300<<10, 100, 7512, "page spool=ab12") },
			"[The file is 300.0 KB, 7512 lines: above are its outline and lines 1-100. Read the lines you need with page spool=ab12 offset=N limit=M, e.g. an entry's lines]"},
		{"unknown param with a newline", func() string {
			return UnknownParams([]string{"of\nfset", strings.Repeat("x", 70)}, []string{"offset", ""})
		},
			`[Unknown params ignored: "of\nfset" (did you mean offset?), ` + strings.Repeat("x", 64) + "…]"},
		{"unchanged", func() string { return Unchanged(1, 2000) }, "[Lines 1-2000 unchanged since your last read]"},
		{"changed", func() string { return ChangedLines([][2]int64{{100, 100}, {500, 501}}, 3, false) },
			"[Changed since your last read: lines 100, 500-501 (3 lines)]"},
		{"changed, one line", func() string { return ChangedLines([][2]int64{{7, 7}}, 1, false) },
			"[Changed since your last read: line 7 (1 line)]"},
		{"changed and moved", func() string { return ChangedLines([][2]int64{{1, 10}}, 10, true) },
			"[Changed since your last read: lines 1-10 (10 lines); the other lines are as you read them, some at new line numbers]"},
		{"moved", func() string { return Moved(2001, 4000) },
			"[Lines 2001-4000 hold no line you have not read, but some at new line numbers: lines were inserted or removed before them]"},
		{"re-read, some lines not read before", func() string { return Reread(1, 40, nil, [][2]int64{{11, 40}}, false) },
			"[Not read before in this session: lines 11-40 (30 lines); the other lines are as you read them]"},
		{"re-read, changed and not read before", func() string { return Reread(1, 40, [][2]int64{{5, 5}}, [][2]int64{{11, 40}}, false) },
			"[Changed since your last read: line 5 (1 line); not read before: lines 11-40 (30 lines)]"},
		{"re-read, changed", func() string { return Reread(1, 600, [][2]int64{{100, 100}, {500, 501}}, nil, false) },
			"[Changed since your last read: lines 100, 500-501 (3 lines)]"},
		{"process, methods", func() string {
			return Process(ProcessFacts{Out: &protocol.ProcessOutput{ID: "p1", Running: true, Cursor: "c"}})
		}, "[Process p1 is running; process/read or process/wait again goes on from cursor=c]"},
		{"process, tool names", func() string {
			return Process(ProcessFacts{Out: &protocol.ProcessOutput{ID: "p1", Running: true, Cursor: "c"}, ToolNames: true})
		}, "[Process p1 is running; process_read or process_wait again goes on from cursor=c]"},
		{"waiting, tool names", func() string {
			return Waiting(WaitingFacts{ID: "p1", Waiting: &protocol.WaitingForInput{Prompt: "> ", Echo: true}, ToolNames: true}, false)
		}, "Process p1 waits for input; its prompt: \"> \". Answer with process_write id=p1 stdin=\"...\\n\" (close: true ends its input); process_wait then returns at its next prompt, its exit or a line matching until.pattern; process_kill ends it"},
		{"needs a terminal, tool names", func() string { return NeedsTerminal("stdin is not a tty", true) }, "The command wanted a terminal (\"stdin is not a tty\"): run it again with tty: true, and answer its prompts with process_write"},
		{"process line", func() string {
			return ProcessLine(protocol.ProcessInfo{ID: "p2", Command: "npm run dev", ExitCode: ptr(1), StartedMs: 1700000000000})
		}, "p2  exited, status 1  started 2023-11-14 22:13:20Z  npm run dev"},
		{"binary file", func() string { return Binary("application/octet-stream", 2048) },
			"[Binary file (application/octet-stream, 2.0 KB): not shown. Inspect it with exec, e.g. file, xxd or strings]"},
		{"grep whole", gr(GrepFacts{Result: &protocol.GrepResult{TotalMatches: 3}, Limit: 100}), ""},
		{"grep no match", gr(GrepFacts{Result: &protocol.GrepResult{}, Limit: 100}), "[No matches]"},
		{"grep no match, ignored", gr(GrepFacts{Result: &protocol.GrepResult{Skipped: protocol.GrepSkipped{Ignored: 38}}, Limit: 100}),
			"[No matches; 38 paths skipped by .gitignore/.ignore: noIgnore=true searches them]"},
		{"grep match, ignored", gr(GrepFacts{Result: &protocol.GrepResult{TotalMatches: 1, Skipped: protocol.GrepSkipped{Ignored: 38}}, Limit: 100}), ""},
		{"grep limit", gr(GrepFacts{Result: &protocol.GrepResult{TotalMatches: 150, LimitReached: ptr(protocol.GrepByMatches)}, Limit: 100}),
			"[100 matches limit reached. Use limit=200 for more, or refine pattern]"},
		{"grep limit at its cap", gr(GrepFacts{Result: &protocol.GrepResult{TotalMatches: 5000, LimitReached: ptr(protocol.GrepByMatches)}, Limit: 2000}),
			"[2000 matches limit reached. limit=2000 is the most; refine pattern]"},
		{"grep bytes, clipped", gr(GrepFacts{Result: &protocol.GrepResult{TotalMatches: 90, LimitReached: ptr(protocol.GrepByBytes), ClippedLines: 2}, Limit: 100, MaxBytes: 51200, MaxLineChars: 500}),
			"[50.0 KB limit reached. Use maxBytes=102400 for more, or refine pattern] [Some lines truncated to 500 chars. Use read to see full lines]"},
		{"grep skipped", gr(GrepFacts{Result: &protocol.GrepResult{TotalMatches: 1, Skipped: protocol.GrepSkipped{Binary: 2, TooLarge: 1}}, Limit: 100}),
			"[2 binary files with matches not shown] [1 file over 64.0 MB not searched: grep it by path]"},
		{"find limit", func() string {
			return Entries(protocol.MethodFind, &protocol.EntriesResult{Total: 1500, LimitReached: true}, 1000, 0)
		}, "[1000 results limit reached (1500 in all). Use limit=1500 for all, or refine pattern]"},
		{"find limit, few", func() string {
			return Entries(protocol.MethodFind, &protocol.EntriesResult{Total: 29, LimitReached: true}, 3, 0)
		}, "[3 results limit reached (29 in all). Use limit=29 for all, or refine pattern]"},
		{"find limit, past the cap", func() string {
			return Entries(protocol.MethodFind, &protocol.EntriesResult{Total: 300000, LimitReached: true}, 1000, 0)
		}, "[1000 results limit reached (300000 in all). Use limit=2000 for more, or refine pattern]"},
		{"find nothing", func() string { return Entries(protocol.MethodFind, &protocol.EntriesResult{}, 1000, 0) }, "[No matches]"},
		{"find nothing, ignored", func() string { return Entries(protocol.MethodFind, &protocol.EntriesResult{}, 1000, 1) },
			"[No matches; 1 path skipped by .gitignore/.ignore: noIgnore=true searches them]"},
		{"ls empty, ignored", func() string { return Entries(protocol.MethodLs, &protocol.EntriesResult{}, 500, 2) },
			"[Empty directory; 2 paths skipped by .gitignore/.ignore: noIgnore=true lists them]"},
		{"ls limit", func() string {
			return Entries(protocol.MethodLs, &protocol.EntriesResult{Total: 700, LimitReached: true}, 500, 0)
		}, "[500 entries limit reached (700 in all). Use limit=700 for all, or list a subdirectory]"},
		{"ls empty", func() string { return Entries(protocol.MethodLs, &protocol.EntriesResult{}, 500, 0) }, "[Empty directory]"},
		{"read to the cap", func() string { return ReadToCap(16 << 20) },
			"[The file has no size on disk and was read up to 16.0 MB: what follows is not shown]"},
		{"two notices", func() string { return Join("[Showing lines 1-2 of 9. Use offset=3 to continue]", ReadToCap(16<<20)) },
			"[Showing lines 1-2 of 9. Use offset=3 to continue. The file has no size on disk and was read up to 16.0 MB: what follows is not shown]"},
		{"spool evicted", func() string { return SpoolEvicted("ab12", false, 1<<30) },
			"spool ab12 was evicted: the session's spools passed their quota of 1.0 GB, and the oldest are deleted first. Run the command again to see its output"},
		{"spool evicted by the daemon quota", func() string { return SpoolEvicted("ab12", true, 4<<30) },
			"spool ab12 was evicted: the daemon's spools passed its quota of 4.0 GB, and the oldest are deleted first. Run the command again to see its output"},
		{"changed while read", func() string { return ChangedWhileRead("/var/log/app.log") },
			"changed while read: /var/log/app.log changed twice while its window was read; read it again"},
		{"exec plain", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(0)}}), ""},
		{"exec timed out", ex(ExecFacts{Result: &protocol.ExecResult{TimedOut: true, Signal: ptr("SIGTERM")}, Timeout: 2 * time.Second}),
			"[Timed out after 2s: the command's process group was killed]"},
		{"exec cancelled", ex(ExecFacts{Result: &protocol.ExecResult{Cancelled: true}}),
			"[Cancelled: the command's process group was killed]"},
		{"exec killed", ex(ExecFacts{Result: &protocol.ExecResult{Signal: ptr("SIGKILL")}}), "[Killed by SIGKILL]"},
		{"exec: a write outside the workspace", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(1)}, Sandbox: &SandboxDenial{Mode: "workspace-write",
			Writable: []string{"/p", "/w", "/t"}, TmpDir: "/t", Write: true}}),
			"[writes outside the workspace are blocked by the sandbox: workspace-write allows /p, /w and TMPDIR (/t)]"},
		{"exec: a write in read-only, the network, a signal", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(1)}, Sandbox: &SandboxDenial{Mode: "read-only",
			Writable: []string{"/t"}, TmpDir: "/t", Write: true, Network: true, Signal: true}}),
			"[writes are blocked by the sandbox: read-only allows only TMPDIR (/t). the sandbox has no network: only the command's own loopback is reachable, not the host's; network: true (--network) allows it. the sandbox blocks signals, tracing and abstract unix socket connections to processes outside the command's own sandbox]"},
		{"exec: a read outside the roots in read-only", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(1)}, Sandbox: &SandboxDenial{Mode: "read-only",
			Writable: []string{"/t"}, TmpDir: "/t", Roots: []string{"/p"}, Read: true}}),
			"[reads and writes outside the roots are blocked by the sandbox: read-only with roots allows reads beneath /p, TMPDIR (/t) and the system's dirs (/usr, /etc, ...), and writes only in TMPDIR]"},
		{"initialize: bestEffort", func() string {
			return SandboxUnenforced([]string{"Landlock ABI 6 needed for signal scoping, this kernel has 3"}, true)
		},
			"[The sandbox is not fully enforced (bestEffort): Landlock ABI 6 needed for signal scoping, this kernel has 3]"},
		{"initialize: gaps", func() string {
			return SandboxUnenforced([]string{"Landlock ABI 3 needed for truncation of files outside the writable dirs, this kernel has 2"}, false)
		},
			"[The sandbox enforces all but this on this system: Landlock ABI 3 needed for truncation of files outside the writable dirs, this kernel has 2]"},
		{"exec highlights", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(2), Stdout: withHighlights(long, 3, 1733, 1736, 3120, 3120)}, StdoutErrors: true}),
			"[stdout: 5000 lines, 50.0 KB; lines 1001-4000 (30.0 KB) omitted, but errors at lines 1733-1736, 3120 are shown (3 more groups not); read them with page spool=ab12 offset=1001]"},
		{"exec kinds", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(1), Stdout: withKinds(withHighlights(long, 41230, 1733, 1733),
			protocol.Kind{Text: "ERROR [db] query on <*> failed: <*>", Count: 41233, FirstLine: 17, LastLine: 4990},
			protocol.Kind{Text: "ERROR [http] <*> timed out", Count: 9000, FirstLine: 40, LastLine: 4999},
			protocol.Kind{Text: "ERROR [auth] rejected", Count: 12, FirstLine: 100, LastLine: 300},
			protocol.Kind{Text: "WARN slow", Count: 3, FirstLine: 5, LastLine: 6})}, StdoutErrors: true}),
			`[stdout: 5000 lines, 50.0 KB; lines 1001-4000 (30.0 KB) omitted, but errors at lines 1733 are shown (41230 more groups not); most frequent kinds: "ERROR [db] query on <*> failed: <*>" 41233 lines (first 17, last 4990), "ERROR [http] <*> timed out" 9000 lines (first 40, last 4999), "ERROR [auth] rejected" 12 lines (first 100, last 300); read them with page spool=ab12 offset=1001]`},
		{"exec reasons", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(1), Stdout: withReasons(long, 1733, "error", 2000, "rare", 3120, "exit")}}),
			"[stdout: 5000 lines, 50.0 KB; lines 1001-4000 (30.0 KB) omitted, but errors at lines 1733 and the lines before the failure at lines 3120 and lines of a rare shape at lines 2000 are shown; read them with page spool=ab12 offset=1001]"},
		{"exec warnings only", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(0), Stdout: withHighlights(long, 0, 2000, 2002)}}),
			"[stdout: 5000 lines, 50.0 KB; lines 1001-4000 (30.0 KB) omitted, but warnings at lines 2000-2002 are shown; read them with page spool=ab12 offset=1001]"},
		{"exec a clipped line", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(0), Stdout: protocol.Stream{TotalLines: 1, TotalBytes: 3 << 20, ClippedLines: 1, Spool: spool}},
			StdoutClip: &truncate.Clip{Line: 1, StartByte: 2000}}),
			"[stdout: 1 line clipped; page spool=ab12 startByte=2000 reads clipped line 1 on]"},
		{"exec omitted", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(0), Stdout: long}}),
			"[stdout: 5000 lines, 50.0 KB; lines 1001-4000 (30.0 KB) omitted; read them with page spool=ab12 offset=1001]"},
		{"exec omitted, capped spool", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(0),
			Stderr: protocol.Stream{TotalLines: 5000, TotalBytes: 200 << 20, Omitted: omitted, Spool: capped}}}),
			"[stderr: 5000 lines, 200.0 MB; lines 1001-4000 (30.0 KB) omitted; read them with page spool=ab12 offset=1001 (the spool stops at 100.0 MB)]"},
		{"exec clipped", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(0), Stdout: protocol.Stream{ClippedLines: 2, Spool: spool}}}),
			"[stdout: 2 lines clipped; all of it is in page spool=ab12]"},
		{"exec binary", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(0), Stdout: protocol.Stream{Binary: true, TotalBytes: 4096, Spool: spool}}}),
			"[stdout is binary (4.0 KB): not shown; the raw bytes are in /tmp/s/ab12.stdout]"},
		{"exec binary, no spool", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(0), Stdout: protocol.Stream{Binary: true, TotalBytes: 4096, Spool: spool}},
			StdoutSpoolError: "disk full"}),
			"[stdout is binary (4.0 KB): not shown; the full output could not be kept: disk full]"},
		{"exec spool error", ex(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(1), Stderr: protocol.Stream{TotalBytes: 10}}, StderrSpoolError: "disk full"}),
			"[stderr; the full output could not be kept: disk full]"},
		{"exec both streams", ex(ExecFacts{Result: &protocol.ExecResult{Signal: ptr("SIGSEGV"), Stdout: long, Stderr: protocol.Stream{ClippedLines: 1, Spool: spool}}}),
			"[Killed by SIGSEGV. stdout: 5000 lines, 50.0 KB; lines 1001-4000 (30.0 KB) omitted; read them with page spool=ab12 offset=1001. stderr: 1 line clipped; all of it is in page spool=ab12]"},
		{"mcp exit status", func() string { return Ended(&protocol.ExecResult{ExitCode: ptr(2)}) }, "exit status 2"},
		{"mcp timed out", func() string { return Ended(&protocol.ExecResult{TimedOut: true}) }, "timed out"},
		{"mcp cancelled", func() string { return Ended(&protocol.ExecResult{Cancelled: true}) }, "cancelled"},
		{"mcp killed", func() string { return Ended(&protocol.ExecResult{Signal: ptr("SIGTERM")}) }, "killed by SIGTERM"},
		{"mcp ended", func() string { return Ended(&protocol.ExecResult{}) }, "ended"},
		{"mcp stream", func() string { return StreamHeader("stderr") }, "--- stderr ---"},
		{"mcp binary", func() string { return BinaryOutput(4096, "ab12") }, "[binary output, 4.0 KB: not shown; the bytes are in spool=ab12]"},
		{"mcp binary, no spool", func() string { return BinaryOutput(10, "") }, "[binary output, 10 B: not shown]"},
		{"mcp omitted", func() string { return OmittedLines(omitted, "ab12") },
			"[... lines 1001-4000 omitted (30.0 KB); page spool=ab12 offset=1001 to read them ...]"},
		{"mcp omitted, no spool", func() string { return OmittedLines(omitted, "") }, "[... lines 1001-4000 omitted (30.0 KB) ...]"},
		{"mcp fitted", func() string { return FittedResult(24 << 10) },
			"[Cut to 24.0 KB so that it reaches you whole: the omitted lines named above are in the spool; give maxBytes for more]"},
		{"mcp kind", func() string {
			return KindOfFailure(protocol.Kind{Text: "ERROR [db] <*> failed", Count: 41233, FirstLine: 17, LastLine: 477600})
		}, `[kind of failure: 41,233× "ERROR [db] <*> failed" lines 17-477600]`},
		{"mcp kind, one line", func() string { return KindOfFailure(protocol.Kind{Text: "x", Count: 1, FirstLine: 9, LastLine: 9}) },
			`[kind of failure: 1× "x" line 9]`},
		{"mcp kind, a million", func() string {
			return KindOfFailure(protocol.Kind{Text: "y", Count: 1234567, FirstLine: 1, LastLine: 2})
		},
			`[kind of failure: 1,234,567× "y" lines 1-2]`},
		{"mcp error", func() string { return DaemonError(protocol.CodeNoSuchFile, "no such file: /x") }, "error -32001: no such file: /x"},
		{"size GB", func() string { return Size(3 << 30) }, "3.0 GB"},
		{"exec still running", func() string {
			return ExecRunning(ExecFacts{Result: &protocol.ExecResult{Process: ptr("p1"), Stdout: long}}, time.Second)
		}, "[Still running after 1s as process p1: process/wait waits for it (its exit, a line matching until.pattern, or until.idleMs without output), " +
			"process/read reads what it prints next, process/write answers a prompt, process/kill ends it. " +
			"stdout: 5000 lines, 50.0 KB; lines 1001-4000 (30.0 KB) omitted; read them with page spool=ab12 offset=1001]"},
		{"process running", func() string {
			return Process(ProcessFacts{Out: &protocol.ProcessOutput{ID: "p1", Running: true, Cursor: "10:2"}})
		}, "[Process p1 is running; process/read or process/wait again goes on from cursor=10:2]"},
		{"process wait timed out, lost bytes", func() string {
			return Process(ProcessFacts{Out: &protocol.ProcessOutput{ID: "p1", Running: true, Cursor: "10:2", Reason: protocol.ReasonTimeout},
				Timeout: 30 * time.Second, LostStderr: 2 << 20})
		}, "[Waited 30s: the process neither exited nor met until. Process p1 is running; process/read or process/wait again goes on from cursor=10:2. " +
			"stderr; 2.0 MB past the spool's cap were counted, not kept]"},
		{"process exited", func() string {
			return Process(ProcessFacts{Out: &protocol.ProcessOutput{ID: "p1", ExitCode: ptr(3), Stdout: long}})
		}, "[Process p1 exited with code 3. stdout: 5000 lines, 50.0 KB; lines 1001-4000 (30.0 KB) omitted; read them with page spool=ab12 offset=1001]"},
		{"process killed", func() string {
			return Process(ProcessFacts{Out: &protocol.ProcessOutput{ID: "p1", Signal: ptr("SIGTERM")}})
		},
			"[Process p1 was killed by SIGTERM]"},
		{"write short", func() string { return WriteShort(65536, 100000, 10*time.Second) },
			"[The process read 65536 of 100000 bytes within 10s and its stdin is full: write the rest once it reads on]"},
		{"mcp still running", func() string { return Ended(&protocol.ExecResult{Process: ptr("p1")}) }, "still running as process p1"},
		{"mcp process state", func() string {
			return ProcessState(&protocol.ProcessOutput{ID: "p1", Running: true, Reason: protocol.ReasonPattern})
		}, "process p1 running (wait ended: pattern)"},
		{"mcp process exited", func() string { return ProcessState(&protocol.ProcessOutput{ID: "p1", ExitCode: ptr(0)}) },
			"process p1 exited, status 0"},
		{"exec waiting for input", func() string {
			w := &protocol.WaitingForInput{Prompt: "Name: ", Echo: true}
			return ExecRunning(ExecFacts{TTY: true, Result: &protocol.ExecResult{Process: ptr("p1"), WaitingForInput: w}}, 0)
		}, `[Waiting for input: the command runs on as process p1; its prompt: "Name: ". Answer with process/write id=p1 stdin="...\n" ` +
			`(typed into its terminal: \n is Enter, \u0003 interrupts, \u0004 ends input; q quits a pager); ` +
			`process/wait then returns at its next prompt, its exit or a line matching until.pattern; process/kill ends it]`},
		{"exec waiting for a password", func() string {
			w := &protocol.WaitingForInput{Prompt: "Password: "}
			return ExecRunning(ExecFacts{TTY: true, Result: &protocol.ExecResult{Process: ptr("p1"), WaitingForInput: w, Stdout: long}}, 0)
		}, `[Waiting for input: the command runs on as process p1; its prompt: "Password: ". Its terminal does not echo (a password prompt): ` +
			`what you write will not show in its output. Answer with process/write id=p1 stdin="...\n" ` +
			`(typed into its terminal: \n is Enter, \u0003 interrupts, \u0004 ends input; q quits a pager); ` +
			`process/wait then returns at its next prompt, its exit or a line matching until.pattern; process/kill ends it. ` +
			`stdout: 5000 lines, 50.0 KB; lines 1001-4000 (30.0 KB) omitted; read them with page spool=ab12 offset=1001]`},
		{"process waits for input on a pipe", func() string {
			w := &protocol.WaitingForInput{Prompt: "name: ", Echo: true}
			return Process(ProcessFacts{Out: &protocol.ProcessOutput{ID: "p1", Running: true, Cursor: "10:0", WaitingForInput: w, Reason: protocol.ReasonInput}})
		}, `[Process p1 waits for input; its prompt: "name: ". Answer with process/write id=p1 stdin="...\n" (close: true ends its input); ` +
			`process/wait then returns at its next prompt, its exit or a line matching until.pattern; process/kill ends it]`},
		{"exec needs a terminal", func() string {
			return Exec(ExecFacts{Result: &protocol.ExecResult{ExitCode: ptr(1)}, NeedsTerminal: "bash: line 1: /dev/tty: No such device or address"})
		}, `[The command wanted a terminal ("bash: line 1: /dev/tty: No such device or address"): run it again with tty: true, and answer its prompts with process/write]`},
		{"mcp waiting for input", func() string {
			return Ended(&protocol.ExecResult{Process: ptr("p1"), WaitingForInput: &protocol.WaitingForInput{}})
		}, "waiting for input as process p1"},
		{"mcp process waiting", func() string {
			return ProcessState(&protocol.ProcessOutput{ID: "p1", Running: true, WaitingForInput: &protocol.WaitingForInput{}, Reason: protocol.ReasonInput})
		}, "process p1 waiting for input (wait ended: input)"},
		{"mcp process list, waiting", func() string {
			return ProcessLine(protocol.ProcessInfo{ID: "p1", Command: "npm init", Running: true, TTY: true,
				WaitingForInput: &protocol.WaitingForInput{Prompt: "package name: "}, StartedMs: 1700000000000})
		}, `p1  waiting for input at "package name: " (tty)  started 2023-11-14 22:13:20Z  npm init`},
		{"mcp exec progress", func() string {
			return ExecProgressMessage(&protocol.ExecProgress{ElapsedMs: 4000, Stdout: protocol.StreamCount{Lines: 20}, LastLine: "step 20"})
		}, "4.0s: stdout 20 lines, stderr 0 lines: step 20"},
		{"mcp index progress", func() string {
			return IndexProgressMessage(&protocol.IndexProgress{BytesDone: 1 << 30, BytesTotal: 4 << 30})
		}, "indexing lines: 1.0 GB of 4.0 GB"},
	}
	for _, tt := range tests {
		if got := tt.say(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestExecSpoolsGone: toold call's notice, composed with SpoolsGone, names
// no spool of its ended session (not for binary output, omitted lines, a
// clipped line or a whole stream) and says it was not kept; without
// SpoolsGone each names it.
func TestExecSpoolsGone(t *testing.T) {
	sp := &protocol.SpoolRef{ID: "ab12", Path: "/run/toold/ab12.stdout.log", Capped: true, Bytes: 1 << 20}
	tests := []struct {
		name   string
		stdout protocol.Stream
		clip   *truncate.Clip
	}{
		{"binary", protocol.Stream{Binary: true, TotalBytes: 300, Spool: sp}, nil},
		{"clipped", protocol.Stream{ClippedLines: 1, Spool: sp}, &truncate.Clip{StartByte: 100, Line: 1}},
		{"omitted", protocol.Stream{TotalLines: 5000, TotalBytes: 50000, Spool: sp,
			Omitted: &protocol.Omitted{FromLine: 3, ToLine: 4998, Bytes: 49000}}, nil},
		{"clipped and omitted", protocol.Stream{TotalLines: 5000, TotalBytes: 50000, ClippedLines: 1, Spool: sp,
			Omitted: &protocol.Omitted{FromLine: 3, ToLine: 4998, Bytes: 49000}}, &truncate.Clip{StartByte: 100, Line: 1}},
	}
	for _, tt := range tests {
		for _, gone := range []bool{false, true} {
			got := Exec(ExecFacts{Result: &protocol.ExecResult{Stdout: tt.stdout}, StdoutClip: tt.clip, SpoolsGone: gone})
			names := strings.Contains(got, "ab12")
			if names == gone || strings.Contains(got, SpoolNotKept) != gone {
				t.Errorf("%s, SpoolsGone %v: %q", tt.name, gone, got)
			}
		}
	}
}

package main

// Contract tests of grep, find and ls (PROTOCOL.md, "Search"), in every
// mode: every limit and notice, bad patterns, missing paths, roots, ignore
// files, symlink loops, and a spool search whose line numbers page confirms.
// The result types are written here from the contract, not taken from
// protocol/, so that a wrong JSON name there fails here.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toold/toold/internal/testenv"
)

type grepResult struct {
	Files []struct {
		Path    string `json:"path"`
		Matches []struct {
			Line   int      `json:"line"`
			Text   string   `json:"text"`
			Before []string `json:"before"`
			After  []string `json:"after"`
		} `json:"matches"`
		Count int `json:"count"`
	} `json:"files"`
	TotalMatches int     `json:"totalMatches"`
	LimitReached *string `json:"limitReached"`
	ClippedLines int     `json:"clippedLines"`
	Skipped      struct {
		Binary   int `json:"binary"`
		TooLarge int `json:"tooLarge"`
		Ignored  int `json:"ignored"`
	} `json:"skipped"`
	Notice *string `json:"notice"`
}

type entriesResult struct {
	Entries      []string `json:"entries"`
	Total        int      `json:"total"`
	LimitReached bool     `json:"limitReached"`
	Notice       *string  `json:"notice"`
}

// hits renders a grep result as "path:line:text" and context as
// "path-line-text" lines.
func (r *grepResult) hits() []string {
	var out []string
	for _, f := range r.Files {
		for _, m := range f.Matches {
			for i, b := range m.Before {
				out = append(out, fmt.Sprintf("%s-%d-%s", f.Path, m.Line-len(m.Before)+i, b))
			}
			out = append(out, fmt.Sprintf("%s:%d:%s", f.Path, m.Line, m.Text))
			for i, a := range m.After {
				out = append(out, fmt.Sprintf("%s-%d-%s", f.Path, m.Line+1+i, a))
			}
		}
	}
	return out
}

// searchTree writes the tree the search tests share, and what git cannot
// hold: symlinks in a loop and out of the roots, beside a file outside.
func searchTree(t *testing.T) (dir, outside string) {
	t.Helper()
	many := strings.Repeat("needle\n", 150)
	base := ctFiles(t, map[string][]byte{
		"tree/.gitignore":         []byte("*.log\nbuild/\n"),
		"tree/a.go":               []byte("package a\n\n// needle one\nfunc A() {}\n"),
		"tree/app.log":            []byte("needle in an ignored log\n"),
		"tree/build/out.txt":      []byte("needle in an ignored dir\n"),
		"tree/sub/.gitignore":     []byte("*.txt\n!keep.txt\n"),
		"tree/sub/drop.txt":       []byte("needle dropped\n"),
		"tree/sub/keep.txt":       []byte("needle kept\n"),
		"tree/sub/.ignore":        []byte("secret\n"),
		"tree/sub/secret":         []byte("needle secret\n"),
		"tree/bin.dat":            []byte("needle\x00\x01\x02binary\n"),
		"tree/crlf/c.txt":         []byte("one\r\nneedle crlf\r\nthree\r\n"),
		"tree/long/l.txt":         []byte("needle " + strings.Repeat("é", 600) + "\n"),
		"tree/many/m.txt":         []byte(many),
		"tree/ctx/c.txt":          []byte("1\n2\nneedle 3\n4\n5\n6\n7\nneedle 8\nneedle 9\n10\n"),
		"outside/secret.txt":      []byte("needle outside\n"),
		"tree/empty/.placeholder": nil,
		"tree/.git/HEAD":          []byte("ref: refs/heads/main\n"), // a work tree: .gitignore applies
	})
	dir, outside = filepath.Join(base, "tree"), filepath.Join(base, "outside")
	for link, target := range map[string]string{
		"sub/loop": "..", "sub/self": "self", "out.txt": "../outside/secret.txt", "outdir": "../outside",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "empty", ".placeholder")); err != nil {
		t.Fatal(err)
	}
	return dir, outside
}

func TestContractGrep(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		dir, outside := searchTree(t)
		p := start(t)
		p.mustCall("initialize", map[string]any{"cwd": dir, "roots": []string{dir}}, nil)
		grep := func(params map[string]any) *grepResult {
			t.Helper()
			var r grepResult
			p.mustCall("grep", params, &r)
			total := 0
			for _, f := range r.Files {
				total += f.Count
				if len(f.Matches) == 0 || len(f.Matches) > f.Count {
					t.Errorf("%v: %s has %d matches shown of %d", params, f.Path, len(f.Matches), f.Count)
				}
			}
			if total != r.TotalMatches {
				t.Errorf("%v: totalMatches %d, counts add to %d", params, r.TotalMatches, total)
			}
			if r.Notice != nil && strings.ContainsAny(*r.Notice, "\r\n") {
				t.Errorf("%v: notice is not one line: %q", params, *r.Notice)
			}
			return &r
		}

		// The tree, cwd by default: walk order, ignore files (nested, with
		// negation), a binary skipped, symlinks neither looped nor left by.
		r := grep(map[string]any{"pattern": "needle (one|kept|crlf|dropped|secret|outside|in)"})
		want := []string{"a.go:3:// needle one", "crlf/c.txt:2:needle crlf", "sub/keep.txt:1:needle kept"}
		if got := r.hits(); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("tree: got %q, want %q", got, want)
		}
		if r.LimitReached != nil || r.Notice != nil || r.Skipped.Ignored != 4 || r.Skipped.Binary != 0 {
			t.Errorf("tree: limit %v notice %q skipped %+v (want 4 ignored: app.log build/ sub/drop.txt sub/secret)", r.LimitReached, ctStr(r.Notice), r.Skipped)
		}
		if r := grep(map[string]any{"pattern": "binary"}); r.Skipped.Binary != 1 || r.TotalMatches != 0 || ctStr(r.Notice) != "[No matches; 4 paths skipped by .gitignore/.ignore: noIgnore=true searches them] [1 binary file with matches not shown]" {
			t.Errorf("binary: %+v %q", r.Skipped, ctStr(r.Notice))
		}

		// The match limit: default 100, its notice, then limit=200.
		r = grep(map[string]any{"pattern": "needle", "path": "many"})
		if ctStr(r.LimitReached) != "matches" || len(r.Files[0].Matches) != 100 || r.Files[0].Count != 150 ||
			ctStr(r.Notice) != "[100 matches limit reached. Use limit=200 for more, or refine pattern]" {
			t.Errorf("limit 100: reached %q, %d shown, count %d, notice %q", ctStr(r.LimitReached), len(r.Files[0].Matches), r.Files[0].Count, ctStr(r.Notice))
		}
		if r = grep(map[string]any{"pattern": "needle", "path": "many", "limit": 200}); r.LimitReached != nil || len(r.Files[0].Matches) != 150 || r.Notice != nil {
			t.Errorf("limit 200: %v %d %q", r.LimitReached, len(r.Files[0].Matches), ctStr(r.Notice))
		}
		if r = grep(map[string]any{"pattern": "needle", "path": "many", "limit": 1 << 40}); len(r.Files[0].Matches) != 150 {
			t.Errorf("a limit over the cap is clamped: %d", len(r.Files[0].Matches))
		}
		// The byte limit.
		r = grep(map[string]any{"pattern": "needle", "path": "many", "maxBytes": 100})
		if ctStr(r.LimitReached) != "bytes" || len(r.Files[0].Matches) >= 20 ||
			ctStr(r.Notice) != "[100 B limit reached. Use maxBytes=200 for more, or refine pattern]" {
			t.Errorf("maxBytes 100: %q %d %q", ctStr(r.LimitReached), len(r.Files[0].Matches), ctStr(r.Notice))
		}
		// Clipped lines: 500 characters by default, on a character boundary.
		r = grep(map[string]any{"pattern": "needle", "path": "long/l.txt"})
		if m := r.Files[0].Matches[0]; utf8.RuneCountInString(m.Text) != 500 || !utf8.ValidString(m.Text) || r.ClippedLines != 1 ||
			ctStr(r.Notice) != "[Some lines truncated to 500 chars. Use read to see full lines]" || r.Files[0].Path != filepath.Join(dir, "long", "l.txt") {
			t.Errorf("clipped: %d chars, clipped %d, notice %q, path %q", utf8.RuneCountInString(m.Text), r.ClippedLines, ctStr(r.Notice), r.Files[0].Path)
		}
		if r = grep(map[string]any{"pattern": "needle", "path": "long", "maxLineChars": 10}); r.Files[0].Matches[0].Text != "needle ééé" {
			t.Errorf("maxLineChars 10: %q", r.Files[0].Matches[0].Text)
		}
		// Context, CRLF, literal, ignoreCase, glob.
		r = grep(map[string]any{"pattern": "needle", "path": "ctx", "context": 2})
		want = []string{"c.txt-1-1", "c.txt-2-2", "c.txt:3:needle 3", "c.txt-4-4", "c.txt-5-5", "c.txt-6-6", "c.txt-7-7", "c.txt:8:needle 8", "c.txt:9:needle 9", "c.txt-10-10"}
		if got := r.hits(); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("context: got %q, want %q", got, want)
		}
		if r = grep(map[string]any{"pattern": "crlf$", "path": "crlf"}); len(r.hits()) != 1 || r.hits()[0] != "c.txt:2:needle crlf" {
			t.Errorf("crlf: %q", r.hits())
		}
		if r = grep(map[string]any{"pattern": "NEEDLE (", "literal": true}); r.TotalMatches != 0 {
			t.Errorf("literal: %q", r.hits())
		}
		if r = grep(map[string]any{"pattern": "NEEDLE ONE", "ignoreCase": true, "glob": "*.go"}); len(r.hits()) != 1 {
			t.Errorf("ignoreCase + glob: %q", r.hits())
		}
		if r = grep(map[string]any{"pattern": "needle", "glob": "sub/**", "unknownField": 1}); len(r.hits()) != 1 {
			t.Errorf("glob sub/** (an unknown field ignored): %q", r.hits())
		}

		// Errors: bad patterns, a missing path, outside the roots.
		for _, tt := range []struct {
			params map[string]any
			code   int64
			field  string
		}{
			{map[string]any{"pattern": "a("}, -32602, "pattern"},
			{map[string]any{"pattern": `\p{Nope}`}, -32602, "pattern"},
			{map[string]any{"pattern": "x{2000}"}, -32602, "pattern"},
			{map[string]any{}, -32602, "pattern"},
			{map[string]any{"pattern": "x", "glob": "[a-"}, -32602, "glob"},
			{map[string]any{"pattern": "x", "limit": -1}, -32602, "limit"},
			{map[string]any{"pattern": "x", "context": "2"}, -32602, "context"},
			{map[string]any{"pattern": "x", "path": "nope"}, -32001, "path"},
			{map[string]any{"pattern": "x", "path": outside}, -32002, "path"},
			{map[string]any{"pattern": "x", "path": "outdir"}, -32002, "path"},
			{map[string]any{"pattern": "x", "path": "out.txt"}, -32002, "path"},
			{map[string]any{"pattern": "x", "path": "/"}, -32002, "path"},
			{map[string]any{"pattern": "x", "spool": "0123456789abcdef"}, -32001, "spool"},
		} {
			err := p.call("grep", tt.params, nil)
			if err == nil || err.Code != tt.code || !strings.Contains(err.Message+string(err.Data), tt.field) {
				t.Errorf("grep %v: %v, want %d naming %s", tt.params, err, tt.code, tt.field)
			}
		}
	})
}

// TestContractGrepSpool: a spool searched, its line numbers confirmed by
// page, its lines shown cleaned as page shows them.
func TestContractGrepSpool(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var x execResult
		p.mustCall("exec", map[string]any{"command": `for i in $(seq 1 5000); do if [ $((i % 1000)) = 321 ]; then printf '\033[31mERROR %d\033[0m\n' $i; else echo "line $i"; fi; done`}, &x)
		if x.Stdout.Spool == nil {
			t.Fatalf("no spool: %+v", x.Stdout)
		}
		var r grepResult
		p.mustCall("grep", map[string]any{"spool": x.Stdout.Spool.ID, "pattern": "ERROR", "context": 1}, &r)
		if r.TotalMatches != 5 || len(r.Files) != 1 || r.Files[0].Path != x.Stdout.Spool.Path {
			t.Fatalf("spool grep: %+v", r)
		}
		for _, m := range r.Files[0].Matches {
			if m.Text != fmt.Sprintf("ERROR %d", m.Line) || len(m.Before) != 1 || m.Before[0] != fmt.Sprintf("line %d", m.Line-1) {
				t.Errorf("match %+v", m)
			}
			var w window
			p.mustCall("page", map[string]any{"spool": x.Stdout.Spool.ID, "offset": m.Line, "limit": 1}, &w)
			if w.Content != m.Text+"\n" {
				t.Errorf("page offset=%d: %q, grep said %q", m.Line, w.Content, m.Text)
			}
		}
		if err := p.call("grep", map[string]any{"spool": x.Stdout.Spool.ID, "path": "/tmp", "pattern": "x"}, nil); err == nil || err.Code != -32602 {
			t.Errorf("path and spool: %v", err)
		}
	})
}

func TestContractFindLs(t *testing.T) {
	parallel(t) // before the 1,001 files: they are made beside the other cases
	// One directory of 1,001 files for every mode: they only read it.
	names := make([]string, 1001)
	for i := range names {
		names[i] = fmt.Sprintf("f%04d", i)
	}
	wide := ctEmptyFiles(t, names)
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		dir, outside := searchTree(t)
		p := start(t)
		p.mustCall("initialize", map[string]any{"cwd": dir, "roots": []string{dir, wide}}, nil)
		call := func(method string, params map[string]any) *entriesResult {
			t.Helper()
			var r entriesResult
			p.mustCall(method, params, &r)
			if r.LimitReached != (r.Total > len(r.Entries)) {
				t.Errorf("%s %v: limitReached %v with %d of %d", method, params, r.LimitReached, len(r.Entries), r.Total)
			}
			return &r
		}
		check := func(method string, params map[string]any, want []string, notice string) {
			t.Helper()
			r := call(method, params)
			if strings.Join(r.Entries, "|") != strings.Join(want, "|") || ctStr(r.Notice) != notice {
				t.Errorf("%s %v:\n got %q %q\nwant %q %q", method, params, r.Entries, ctStr(r.Notice), want, notice)
			}
		}
		// A symlink is listed (not followed) unless a type is asked for.
		check("find", map[string]any{"pattern": "*.txt"}, []string{"crlf/c.txt", "ctx/c.txt", "long/l.txt", "many/m.txt", "out.txt", "sub/keep.txt"}, "<nil>")
		check("find", map[string]any{"pattern": "*.txt", "type": "file"}, []string{"crlf/c.txt", "ctx/c.txt", "long/l.txt", "many/m.txt", "sub/keep.txt"}, "<nil>")
		check("find", map[string]any{"type": "dir"}, []string{"crlf/", "ctx/", "empty/", "long/", "many/", "sub/"}, "<nil>")
		check("find", map[string]any{"pattern": "sub/*", "type": "file"}, []string{"sub/.gitignore", "sub/.ignore", "sub/keep.txt"}, "<nil>")
		check("find", map[string]any{"path": "sub", "pattern": "**"}, []string{".gitignore", ".ignore", "keep.txt", "loop", "self"}, "<nil>")
		check("find", map[string]any{"pattern": "*.nothing"}, nil, "[No matches; 4 paths skipped by .gitignore/.ignore: noIgnore=true searches them]")
		check("find", map[string]any{"type": "file", "limit": 2}, []string{".gitignore", "a.go"},
			"[2 results limit reached (10 in all). Use limit=10 for all, or refine pattern]")
		if r := call("find", map[string]any{"path": wide}); len(r.Entries) != 1000 || r.Total != 1001 ||
			ctStr(r.Notice) != "[1000 results limit reached (1001 in all). Use limit=1001 for all, or refine pattern]" {
			t.Errorf("find's default limit: %d of %d, %q", len(r.Entries), r.Total, ctStr(r.Notice))
		}
		check("ls", map[string]any{}, []string{"a.go", "bin.dat", "crlf/", "ctx/", "empty/", "long/", "many/", "out.txt -> ../outside/secret.txt", "outdir -> ../outside", "sub/"}, "<nil>")
		check("ls", map[string]any{"path": "sub", "all": true}, []string{".gitignore", ".ignore", "keep.txt", "loop -> ..", "self -> self"}, "<nil>")
		check("ls", map[string]any{"all": true, "limit": 2}, []string{".gitignore", "a.go"},
			"[2 entries limit reached (11 in all). Use limit=11 for all, or list a subdirectory]")
		check("ls", map[string]any{"path": "empty"}, nil, "[Empty directory]")
		if r := call("ls", map[string]any{"path": wide}); len(r.Entries) != 500 || r.Entries[0] != "f0000" ||
			ctStr(r.Notice) != "[500 entries limit reached (1001 in all). Use limit=1001 for all, or list a subdirectory]" {
			t.Errorf("ls's default limit: %d of %d, %q", len(r.Entries), r.Total, ctStr(r.Notice))
		}
		for _, tt := range []struct {
			method string
			params map[string]any
			code   int64
			field  string
		}{
			{"find", map[string]any{"pattern": "[a-"}, -32602, "pattern"},
			{"find", map[string]any{"type": "link"}, -32602, "type"},
			{"find", map[string]any{"path": "nope"}, -32001, "path"},
			{"find", map[string]any{"path": outside}, -32002, "path"},
			{"find", map[string]any{"path": "sub/loop/outdir"}, -32002, "path"},
			{"ls", map[string]any{"path": "nope"}, -32001, "path"},
			{"ls", map[string]any{"path": outside}, -32002, "path"},
			{"ls", map[string]any{"limit": -5}, -32602, "limit"},
		} {
			err := p.call(tt.method, tt.params, nil)
			if err == nil || err.Code != tt.code || !strings.Contains(err.Message+string(err.Data), tt.field) {
				t.Errorf("%s %v: %v, want %d naming %s", tt.method, tt.params, err, tt.code, tt.field)
			}
		}
	})
}

// TestContractIgnoreRules: .gitignore applies only inside a git work tree
// (a Debian-style top-level "/*" hides nothing outside one), .ignore
// everywhere, noIgnore searches and lists what they hide, and a search
// that finds nothing because of them says so.
func TestContractIgnoreRules(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		files := map[string][]byte{
			".gitignore":     []byte("*.o\n/*\n!/debian/\n"),
			".ignore":        []byte("*.secret\n"),
			"kernel/sched.c": []byte("void schedule(void) {}\n"),
			"kernel/x.o":     []byte("schedule object\n"),
			"key.secret":     []byte("schedule secret\n"),
			"debian/rules":   []byte("schedule rules\n"),
		}
		plain := ctFiles(t, files)
		files[".git/HEAD"] = []byte("ref: refs/heads/main\n")
		repo := ctFiles(t, files)
		p := start(t)
		p.mustCall("initialize", map[string]any{"cwd": plain, "roots": []string{plain, repo}}, nil)
		grep := func(params map[string]any) (hits []string, notice string, ignored int) {
			t.Helper()
			var r grepResult
			p.mustCall("grep", params, &r)
			for _, f := range r.Files {
				hits = append(hits, f.Path)
			}
			return hits, ctStr(r.Notice), r.Skipped.Ignored
		}
		for _, tt := range []struct {
			path     string
			noIgnore bool
			want     []string
			notice   string
			ignored  int
		}{
			// Outside a work tree, as ripgrep: only .ignore applies.
			{plain, false, []string{"debian/rules", "kernel/sched.c", "kernel/x.o"}, "<nil>", 1},
			{plain, true, []string{"debian/rules", "kernel/sched.c", "kernel/x.o", "key.secret"}, "<nil>", 0},
			// Inside one: "/*" hides the top level but debian/.
			{repo, false, []string{"debian/rules"}, "<nil>", 4},
			// A subdirectory given by name is searched though its parent's
			// "/*" names it, as ripgrep searches it (`rg schedule kernel`
			// finds kernel/sched.c); "*.o" still hides x.o.
			{repo + "/kernel", false, []string{"sched.c"}, "<nil>", 1},
			{repo + "/kernel", true, []string{"sched.c", "x.o"}, "<nil>", 0},
		} {
			hits, notice, ignored := grep(map[string]any{"pattern": "schedule", "path": tt.path, "noIgnore": tt.noIgnore})
			if strings.Join(hits, "|") != strings.Join(tt.want, "|") || notice != tt.notice || ignored != tt.ignored {
				t.Errorf("grep %s noIgnore=%v: %q %q ignored %d, want %q %q %d", tt.path, tt.noIgnore, hits, notice, ignored, tt.want, tt.notice, tt.ignored)
			}
		}
		var r entriesResult
		p.mustCall("find", map[string]any{"path": repo, "pattern": "*.c"}, &r)
		if len(r.Entries) != 0 || ctStr(r.Notice) != "[No matches; 4 paths skipped by .gitignore/.ignore: noIgnore=true searches them]" {
			t.Errorf("find in the repo: %q %q", r.Entries, ctStr(r.Notice))
		}
		p.mustCall("find", map[string]any{"path": repo, "pattern": "*.c", "noIgnore": true}, &r)
		if strings.Join(r.Entries, "|") != "kernel/sched.c" || r.Notice != nil {
			t.Errorf("find noIgnore: %q %q", r.Entries, ctStr(r.Notice))
		}
		p.mustCall("ls", map[string]any{"path": repo + "/kernel"}, &r)
		if strings.Join(r.Entries, "|") != "sched.c" || r.Notice != nil {
			t.Errorf("ls in the repo: %q %q", r.Entries, ctStr(r.Notice))
		}
		if hits, notice, _ := grep(map[string]any{"path": repo + "/kernel", "pattern": "object"}); len(hits) != 0 ||
			notice != "[No matches; 1 path skipped by .gitignore/.ignore: noIgnore=true searches them]" {
			t.Errorf("grep of what *.o hides: %q %q", hits, notice)
		}
		p.mustCall("ls", map[string]any{"path": repo + "/kernel", "noIgnore": true}, &r)
		if strings.Join(r.Entries, "|") != "sched.c|x.o" {
			t.Errorf("ls noIgnore: %q %q", r.Entries, ctStr(r.Notice))
		}
		p.mustCall("ls", map[string]any{"path": plain}, &r)
		if strings.Join(r.Entries, "|") != "debian/|kernel/" {
			t.Errorf("ls outside a work tree: %q", r.Entries)
		}
	})
}

// TestContractSearchIndex: the first grep of a tree scans and starts its
// index; once stats says it is ready, greps are answered from it with the
// reply a scan gave, and an edit by another process is seen by a grep 100
// ms later.
func TestContractSearchIndex(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		files := map[string][]byte{".git/HEAD": []byte("ref: x\n"), ".gitignore": []byte("*.log\n"), "skip.log": []byte("needle_7 in a log\n")}
		for i := range 60 {
			body := fmt.Sprintf("package p%d\n\nfunc F%d() int { return %d }\n", i, i, i)
			if i%10 == 3 {
				body += fmt.Sprintf("// needle_%d here\n", i%7)
			}
			files[fmt.Sprintf("d%d/f%02d.go", i%4, i)] = []byte(body)
		}
		dir := ctFiles(t, files)
		p := start(t)
		p.mustCall("initialize", map[string]any{"cwd": dir, "roots": []string{dir}}, nil)
		queries := []map[string]any{
			{"pattern": "needle_[0-9]"}, {"pattern": "NEEDLE_6", "ignoreCase": true}, {"pattern": "func F1\\d", "limit": 3},
			{"pattern": "nothing_here"}, {"pattern": "return", "literal": true, "glob": "d1/**"}, {"pattern": "needle_7"},
		}
		grep := func(q map[string]any) string {
			t.Helper()
			var r json.RawMessage
			p.mustCall("grep", q, &r)
			return string(r)
		}
		scanned := make([]string, len(queries))
		for i, q := range queries {
			scanned[i] = grep(q)
		}
		type indexStats struct {
			Root        string `json:"root"`
			State       string `json:"state"`
			Files       int    `json:"files"`
			Bytes       int64  `json:"bytes"`
			BuiltMs     *int64 `json:"builtMs"`
			Hits, Scans int64
		}
		var st struct {
			Index []indexStats `json:"index"`
		}
		if !testenv.Until(20*time.Second, func() bool {
			p.mustCall("stats", nil, &st)
			return len(st.Index) == 1 && st.Index[0].State == "ready"
		}) {
			t.Fatalf("index never ready: %+v", st.Index)
		}
		if s := st.Index[0]; s.Files != 61 || s.Bytes <= 0 || s.BuiltMs == nil || s.Root == "" {
			t.Errorf("stats.index: %+v", s)
		}
		for i, q := range queries {
			if got := grep(q); got != scanned[i] {
				t.Errorf("%v: from the index\n%s\nscan gave\n%s", q, got, scanned[i])
			}
		}
		p.mustCall("stats", nil, &st)
		if st.Index[0].Hits < 4 {
			t.Errorf("greps answered from the index: %+v", st.Index[0])
		}
		cmd := exec.Command("sh", "-c", "printf '// needle_9 added\\n' >> d2/f10.go")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		time.Sleep(100 * time.Millisecond)
		var r grepResult
		p.mustCall("grep", map[string]any{"pattern": "needle_9"}, &r)
		if strings.Join(r.hits(), "|") != "d2/f10.go:4:// needle_9 added" {
			t.Errorf("an edit 100 ms before: %q", r.hits())
		}
	})
}

package highlight

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestCleanOutputs: the outputs of commands that went right show no group,
// whatever words of failure they hold as names, flags, counts or prose:
// listings, numbers, a clean log, package lists, licenses, man pages and
// package docs. A command not installed here is skipped. (Not git log: a
// commit may quote a message, as this project's do.)
// (Prose is told from messages by their shape, not always: go doc of os
// quotes "open file.go: no such file or directory", and docs/protocol.md
// wraps a line at "between: errors over warnings", both taken for one.)
func TestCleanOutputs(t *testing.T) {
	t.Parallel()
	cmds := []string{
		// Numbers of one shape: 20,000 lines (110 KB) in the quick run,
		// 100,000 (590 KB) with TOOLD_LONG=1.
		"seq 1 " + testenv.Size("20000", "100000"),
		"ls -R /usr/include",
		"ls -laR /etc",
		"find /usr/share/doc -maxdepth 2",
		"tar -cvf /dev/null /usr/include/linux",
		"dpkg -l",
		"cat /usr/share/common-licenses/GPL-3",
		"man -P cat bash",
		"go env",
		"go doc -all errors",
		"go version -m $(command -v go)",
		"cat ../README.md ../DEVELOPERS.md",
		"env",
	}
	for _, c := range cmds {
		t.Run(strings.Fields(c)[0]+" "+strings.Join(strings.Fields(c)[1:], " "), func(t *testing.T) {
			out, err := exec.Command("bash", "-c", c).Output()
			if err != nil || len(out) == 0 {
				t.Skipf("%s: %v", c, err)
			}
			checkClean(t, quickHead(out))
		})
	}
	t.Run("a clean log", func(t *testing.T) {
		var clean bytes.Buffer
		// 128 KiB (1,500 lines) in the quick run, 4 MiB with TOOLD_LONG=1.
		for _, l := range bytes.SplitAfter(logText(testenv.Size(128<<10, 4<<20)), []byte("\n")) {
			if !bytes.Contains(l, []byte("ERROR")) {
				clean.Write(l)
			}
		}
		checkClean(t, clean.Bytes())
	})
}

// quickHead is out's first 128 KiB, cut to whole lines, in the quick run
// (man bash's 400 KB, a listing's 150 KB: more lines of the shapes and
// prose already met, 0.5 CPU-s under -race); out whole with TOOLD_LONG=1.
func quickHead(out []byte) []byte {
	const head = 128 << 10
	if testenv.Long() || len(out) <= head {
		return out
	}
	return out[:bytes.LastIndexByte(out[:head], '\n')+1]
}

// checkClean: a clean output has no group but those of rare shapes
// (reason "rare", which a preview gives at most RareBytes), and no kinds.
func checkClean(t *testing.T, out []byte) {
	t.Helper()
	r := Scan(out, Options{})
	if gs := failureGroups(r.Groups); len(gs) > 0 || len(r.Kinds) > 0 {
		var hits []string
		for _, g := range gs {
			hits = append(hits, fmt.Sprintf("%d %s %q", g.Hit, g.Rule, g.Lines[g.Hit-g.FromLine]))
		}
		t.Errorf("%d groups, %d kinds: %s", len(gs), len(r.Kinds), strings.Join(hits, "; "))
	}
}

// failureGroups returns the groups of gs whose reason is not "rare".
func failureGroups(gs []Group) []Group {
	var out []Group
	for _, g := range gs {
		if g.Reason != ReasonRare {
			out = append(out, g)
		}
	}
	return out
}

// TestVocabulary: a word of failure is a hit as a word of a message, not
// as a part of a name, a flag, a count of none or prose.
func TestVocabulary(t *testing.T) {
	tests := []struct {
		line string
		hit  bool
	}{
		{"cp: cannot stat 'src/a.css': No such file or directory", true},
		{"deploy.sh: line 7: minify-css: command not found", true},
		{"./hooks/post-copy: Permission denied", true},
		{"Can't locate Text/CSV_XS.pm in @INC", true},
		{"Parse error near line 1236: no such table: item_tags", true},
		{"curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server", true},
		{"fatal error: config.h: No such file or directory", true},
		{"Cannot find module 'left-pad'", true},
		{"gcc -Wall -Werror -Wno-error=unused -fno-exceptions -c error.c -o error.o", false},
		{"ok: 0 errors, 0 warnings, no failures", false},
		{"summary: errors: 0, failed=0", false},
		{"=== RUN   TestErrorIsReturned", false},
		{"/usr/include/c++/12/exception", false},
		{"lrwxrwxrwx 1 root root 44 May 12 ABORT.7.gz -> ../ABORT.7.gz", false},
		{"    If any of the files exist but cannot be read, bash reports an error.", false},
		{"Errors returned from this package may be tested against these errors", false},
		{"| `exitCode` | null when killed by a signal |", false},
		{"ii  libasan8:amd64  12.2.0  amd64  AddressSanitizer -- a fast memory error detector", false},
	}
	for _, tc := range tests {
		if got := vocabHit([]byte(tc.line)); got != tc.hit {
			t.Errorf("%q: hit %v, want %v", tc.line, got, tc.hit)
		}
	}
}

// TestRareProse: a word of failure in a line not shaped as a message is a
// highlight when its shape is rare among thousands of repeated shapes,
// whatever tool printed it; not when it repeats all through the output,
// nor a rare line without a word of failure.
func TestRareProse(t *testing.T) {
	noise := func(b *strings.Builder, from, to int) {
		for i := from; i <= to; i++ {
			fmt.Fprintf(b, "ok step %d\n", i)
		}
	}
	for _, x := range []string{
		"connection refused",
		"request timed out after 37ms",
		"Permission denied",
		"access denied for user bob",
		"thread main has overflowed its stack, fatal runtime abort",
		"Connection refused by peer 10.0.0.1",
		"Fatal glibc error: malloc assertion failure",
		"FAIL: TestThing37",
	} {
		t.Run(x, func(t *testing.T) {
			var b strings.Builder
			noise(&b, 1, 3000)
			b.WriteString(x + "\n")
			noise(&b, 3001, 6000)
			r := Scan([]byte(b.String()), Options{})
			if len(r.Groups) != 1 || r.Groups[0].Hit != 3001 || strings.TrimSpace(r.Groups[0].Lines[len(r.Groups[0].Lines)-1]) != x {
				t.Fatalf("groups %+v, want one whose hit is line 3001 %q", r.Groups, x)
			}
			if r.Found != 1 || r.Errors != 1 {
				t.Errorf("found %d, errors %d; want 1, 1", r.Found, r.Errors)
			}
		})
	}
	t.Run("repeated all through", func(t *testing.T) {
		var b strings.Builder
		for i := 1; i <= 6000; i++ {
			if i%30 == 0 {
				fmt.Fprintf(&b, "retrying: connection refused by peer 10.0.0.%d\n", i%7)
				continue
			}
			fmt.Fprintf(&b, "ok step %d\n", i)
		}
		checkClean(t, []byte(b.String()))
	})
	t.Run("rare without a word of failure", func(t *testing.T) {
		// Said in the tool's own words: a group of reason "rare", not an
		// error, and not counted as found.
		var b strings.Builder
		noise(&b, 1, 3000)
		b.WriteString("checkpoint written to /var/lib/app/state.db\n")
		noise(&b, 3001, 6000)
		checkClean(t, []byte(b.String()))
		r := Scan([]byte(b.String()), Options{})
		if len(r.Groups) != 1 || r.Groups[0].Reason != ReasonRare || r.Groups[0].Hit != 3001 || r.Found != 0 {
			t.Errorf("groups %+v, found %d; want one of reason rare at line 3001, none found", r.Groups, r.Found)
		}
	})
}

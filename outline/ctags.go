package outline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// ctagsTimeout bounds one run of ctags: Universal Ctags 5.9 ran for
// minutes on a 50 MB Markdown file. Past it the file is outlined by indent.
var ctagsTimeout = 20 * time.Second

// Starter starts a helper process and returns its wait (instead of
// cmd.Wait): the daemon's exec.Runner.Start, so that its orphan reaper does
// not reap ctags first. nil starts it plainly.
type Starter func(cmd *exec.Cmd) (wait func() error, err error)

func (st Starter) start(cmd *exec.Cmd) (func() error, error) {
	if st != nil {
		return st(cmd)
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd.Wait, nil
}

// LookCtags finds Universal Ctags on PATH with JSON output, once; "" when
// there is none. Tests replace it to hide ctags.
var LookCtags = func(start Starter) string {
	ctagsOnce.Do(func() { ctagsBin = lookCtags(start) })
	return ctagsBin
}

var (
	ctagsOnce sync.Once
	ctagsBin  string
)

func lookCtags(start Starter) string {
	p, err := exec.LookPath("ctags")
	if err != nil {
		return ""
	}
	var out bytes.Buffer
	cmd := exec.Command(p, "--version")
	cmd.Stdout = &out
	wait, err := start.start(cmd)
	if err == nil {
		err = wait()
	}
	if err != nil || !bytes.Contains(out.Bytes(), []byte("Universal Ctags")) || !bytes.Contains(out.Bytes(), []byte("+json")) {
		return "" // Exuberant or BSD ctags, or one built without libjansson: no JSON output
	}
	return p
}

// ctagsTag is one line of ctags' JSON output.
type ctagsTag struct {
	Type  string `json:"_type"`
	Name  string `json:"name"`
	Line  int64  `json:"line"`
	End   int64  `json:"end"`
	Kind  string `json:"kind"`
	Scope string `json:"scope"`
}

// ctagsOutline runs ctags on path. It returns nil, nil when ctags is
// missing or finds no tags: the caller falls back to indent.
func ctagsOutline(ctx context.Context, path string, opt Options) (*Outline, error) {
	bin := LookCtags(opt.Start)
	if bin == "" {
		return nil, nil
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, ctagsTimeout)
	defer cancel()
	// ctags 5.9 takes no "--": an absolute path cannot be read as an option.
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	cmd := exec.CommandContext(ctx, bin, "--output-format=json", "--fields=+ne", "-f", "-", path)
	// A pipe of our own, closed when ctx ends: a child of ctags that kept
	// its write end open would otherwise hold the reading up past the kill.
	out, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("outline: ctags: %w", err)
	}
	defer out.Close()
	cmd.Stdout = w
	wait, err := opt.Start.start(cmd)
	w.Close()
	if err != nil {
		return nil, fmt.Errorf("outline: ctags: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { out.Close() })
	defer stop()
	var tags []ctagsTag
	total := 0
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var t ctagsTag
		if json.Unmarshal(sc.Bytes(), &t) != nil || t.Type != "tag" || t.Line <= 0 || local(t) {
			continue
		}
		total++
		if len(tags) < opt.MaxEntries {
			t.Name, t.Scope = clip(t.Name), clip(t.Scope)
			tags = append(tags, t)
		}
	}
	err = wait()
	if err := parent.Err(); err != nil {
		return nil, fmt.Errorf("outline: ctags: %w", err)
	}
	if ctx.Err() != nil {
		return nil, nil // ctags took too long (some parsers are slow on big files): indent
	}
	if err != nil || len(tags) == 0 {
		return nil, nil
	}
	return ctagsEntries(tags, total), nil
}

// local says whether a tag is a name inside a function (a local constant
// or variable, a parameter): noise in an outline.
func local(t ctagsTag) bool {
	switch t.Kind {
	case "local", "parameter", "label":
		return true
	case "constant", "variable":
		return strings.Count(t.Scope, ".") >= 1
	}
	return false
}

// ctagsEntries orders tags by line and gives those without an end (ctags
// knows the end only for some languages) the line before the next tag of
// the same or a lower depth, within their parent.
func ctagsEntries(tags []ctagsTag, total int) *Outline {
	sort.SliceStable(tags, func(i, j int) bool { return tags[i].Line < tags[j].Line })
	es := make([]Entry, len(tags))
	for i, t := range tags {
		e := Entry{Line: t.Line, EndLine: t.End, Depth: 1, Kind: t.Kind, Name: t.Name}
		if t.Scope != "" {
			e.Depth = 2 + strings.Count(t.Scope, ".")
			e.Name = clip(t.Scope + "." + t.Name)
		}
		es[i] = e
	}
	for i := range es {
		if es[i].EndLine >= es[i].Line {
			continue
		}
		es[i].EndLine = 0 // unknown: fillEnds
		for j := i + 1; j < len(es); j++ {
			if es[j].Depth <= es[i].Depth && es[j].Line > es[i].Line {
				es[i].EndLine = es[j].Line - 1
				break
			}
		}
	}
	return &Outline{Format: Ctags, Entries: es, TotalEntries: total, Truncated: total > len(es)}
}

// fillEnds gives the entries still without an end (0) the end of their
// parent, or last; parents come first, so they are filled first.
func fillEnds(es []Entry, last int64) {
	for i := range es {
		if es[i].EndLine != 0 {
			continue
		}
		end := last
		for j := i - 1; j >= 0; j-- {
			if es[j].Depth < es[i].Depth {
				end = es[j].EndLine
				break
			}
		}
		es[i].EndLine = max(end, es[i].Line)
	}
}

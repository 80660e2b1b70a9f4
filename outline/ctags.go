package outline

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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

// LookCtags finds Universal Ctags on PATH with JSON output and its
// interactive mode, once; "" when there is none. Tests replace it to hide
// ctags.
var LookCtags = func(start Starter) string {
	ctagsOnce.Do(func() { ctagsBin, ctagsMode = lookCtags(start) })
	return ctagsBin
}

var (
	ctagsOnce sync.Once
	ctagsBin  string
	// ctagsMode is the interactive mode ctags is run in: sandbox (ctags
	// confines itself with seccomp: it opens no file at all) where this
	// build and kernel allow it, else default.
	ctagsMode = "--_interactive=sandbox"
)

// ctagsArgs run ctags on a file handed on its stdin: no option file read
// (--options=NONE: .ctags.d/ in its cwd or $HOME, $CTAGS, could make it
// read any file and print it in tags), JSON tags with their ends.
func ctagsArgs(mode string) []string {
	return []string{"--options=NONE", mode, "--output-format=json", "--fields=+ne"}
}

// ctagsProbe is what lookCtags outlines to tell a mode that works.
const ctagsProbe = "int probe(void) { return 0; }\n"

// PinCtags finds ctags on PATH now, once, for LookCtags to check and use
// later: the daemon calls it as it starts, before any session's command
// runs, so that no command can choose the program the daemon runs
// unconfined by putting a ctags of its own in a directory of PATH it may
// write to (a sandboxed one's workspace) before the first outline.
func PinCtags() {
	ctagsPinOnce.Do(func() { ctagsPinned, _ = exec.LookPath("ctags") })
}

var (
	ctagsPinOnce sync.Once
	ctagsPinned  string
)

func lookCtags(start Starter) (string, string) {
	PinCtags() // a no-op in the daemon, which pinned it at its start
	p := ctagsPinned
	if p == "" {
		return "", ""
	}
	var out bytes.Buffer
	cmd := exec.Command(p, "--version")
	cmd.Stdout, cmd.Dir, cmd.Env = &out, "/", ctagsEnv
	wait, err := start.start(cmd)
	if err == nil {
		err = wait()
	}
	if err != nil || !bytes.Contains(out.Bytes(), []byte("Universal Ctags")) || !bytes.Contains(out.Bytes(), []byte("+json")) ||
		!bytes.Contains(out.Bytes(), []byte("+interactive")) {
		// Exuberant or BSD ctags, or one built without libjansson: no
		// JSON output, and no way to hand it a file but by its path.
		return "", ""
	}
	for _, mode := range []string{"--_interactive=sandbox", "--_interactive"} {
		ctx, cancel := context.WithTimeout(context.Background(), ctagsTimeout)
		tags, _, err := runCtags(ctx, p, mode, "probe.c", strings.NewReader(ctagsProbe), int64(len(ctagsProbe)), 1, start)
		cancel()
		if err == nil && len(tags) == 1 && tags[0].Name == "probe" {
			return p, mode
		}
	}
	return "", ""
}

// ctagsEnv is ctags' whole environment: none of the daemon's.
var ctagsEnv = []string{"LC_ALL=C"}

// ctagsTag is one line of ctags' JSON output.
type ctagsTag struct {
	Type  string `json:"_type"`
	Name  string `json:"name"`
	Path  string `json:"path"`
	Line  int64  `json:"line"`
	End   int64  `json:"end"`
	Kind  string `json:"kind"`
	Scope string `json:"scope"`
}

// ctagsOutline outlines the file the caller opened (r, size bytes) with
// ctags. The file is handed to ctags on its stdin, never by its path
// (which a symlink swap could lead elsewhere during the call); name is
// its base name, from which ctags guesses the language. It returns nil,
// nil when ctags is missing or finds no tags: the caller falls back to
// indent.
func ctagsOutline(ctx context.Context, name string, r io.ReaderAt, size int64, opt Options) (*Outline, error) {
	bin := LookCtags(opt.Start)
	if bin == "" {
		return nil, nil
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, ctagsTimeout)
	defer cancel()
	tags, total, err := runCtags(ctx, bin, ctagsMode, filepath.Base(name), io.NewSectionReader(r, 0, size), size, opt.MaxEntries, opt.Start)
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

// ctagsRequest is the interactive mode's command: tags of the size bytes
// that follow it on stdin, named name.
type ctagsRequest struct {
	Command  string `json:"command"`
	Filename string `json:"filename"`
	Size     int64  `json:"size"`
}

// runCtags runs ctags in mode from a neutral directory (/) with no
// environment of ours, hands it src (size bytes, named name) on its
// stdin, and returns the tags of that name (at most max of them, total
// counting all), leaving out locals.
func runCtags(ctx context.Context, bin, mode, name string, src io.Reader, size int64, max int, start Starter) ([]ctagsTag, int, error) {
	cmd := exec.CommandContext(ctx, bin, ctagsArgs(mode)...)
	cmd.Dir, cmd.Env = "/", ctagsEnv
	// Pipes of our own, closed when ctx ends: a child of ctags that kept
	// an end open would otherwise hold the reading (or the writing) up
	// past the kill.
	in, inW, err := os.Pipe()
	if err != nil {
		return nil, 0, fmt.Errorf("outline: ctags: %w", err)
	}
	defer inW.Close()
	out, w, err := os.Pipe()
	if err != nil {
		in.Close()
		return nil, 0, fmt.Errorf("outline: ctags: %w", err)
	}
	defer out.Close()
	cmd.Stdin, cmd.Stdout = in, w
	wait, err := start.start(cmd)
	in.Close()
	w.Close()
	if err != nil {
		return nil, 0, fmt.Errorf("outline: ctags: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { out.Close(); inW.Close() })
	defer stop()
	wrote := make(chan error, 1)
	go func() { wrote <- feedCtags(inW, name, src, size) }() // ends at EOF of src, or when ctags or ctx closes the pipe
	tags, total := readTags(out, name, max)
	werr := <-wrote
	err = wait()
	if err == nil {
		err = werr
	}
	return tags, total, err
}

// feedCtags writes the request and the file to ctags' stdin, then closes
// it: ctags ends at its EOF.
func feedCtags(w *os.File, name string, src io.Reader, size int64) error {
	defer w.Close()
	req, _ := json.Marshal(ctagsRequest{Command: "generate-tags", Filename: name, Size: size})
	if _, err := w.Write(append(req, '\n')); err != nil {
		return err
	}
	n, err := io.Copy(w, src)
	if err == nil && n != size {
		err = fmt.Errorf("the file changed size while read: %d bytes of %d", n, size)
	}
	return err
}

// readTags reads ctags' JSON lines: the tags of name (none of another
// file's, should a parser give any), at most max held, all counted.
func readTags(out io.Reader, name string, max int) ([]ctagsTag, int) {
	var tags []ctagsTag
	total := 0
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var t ctagsTag
		if json.Unmarshal(sc.Bytes(), &t) != nil || t.Type != "tag" || t.Path != name || t.Line <= 0 || local(t) {
			continue
		}
		total++
		if len(tags) < max {
			t.Name, t.Scope = clip(t.Name), clip(t.Scope)
			tags = append(tags, t)
		}
	}
	return tags, total
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

package layout

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const (
	module = "github.com/toold/toold/"
	guide  = "../../DEVELOPERS.md"
	// nothing is the right side of a package that imports none of ours.
	nothing = "nothing"
)

// goos are the systems toold builds for (DEVELOPERS.md, Platforms): an
// import in a file of one of them only (sandbox's Linux files) is real.
var goos = []string{"linux", "darwin", "freebsd"}

// arrow is one import of a module package by another: from → to.
type arrow struct{ from, to string }

func (a arrow) String() string { return a.from + " → " + a.to }

// TestImportsAsDocumented fails for each import DEVELOPERS.md's imports
// block misses and each arrow it shows that no file imports, and for a
// package the block or the layout list leaves out.
func TestImportsAsDocumented(t *testing.T) {
	doc, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	block, err := section(string(doc), "### Imports")
	if err != nil {
		t.Fatal(err)
	}
	documented, err := parseImports(block)
	if err != nil {
		t.Fatalf("DEVELOPERS.md's imports block: %v", err)
	}
	actual := realImports(t)

	for _, a := range diff(actual, documented) {
		t.Errorf("DEVELOPERS.md misses the arrow %v: %s imports %s (add it to the imports block)", a, a.from, a.to)
	}
	for _, a := range diff(documented, actual) {
		t.Errorf("DEVELOPERS.md shows the arrow %v, which is not real: no file of %s imports %s", a, a.from, a.to)
	}
	for _, p := range sortedKeys(actual) {
		if _, ok := documented[p]; !ok {
			t.Errorf("DEVELOPERS.md's imports block has no line for package %s", p)
		}
	}
	for _, p := range sortedKeys(documented) {
		if _, ok := actual[p]; !ok {
			t.Errorf("DEVELOPERS.md's imports block names %s, which is not a package of the module", p)
		}
	}
	checkLayoutList(t, string(doc), sortedKeys(actual))
}

// checkLayoutList fails for a package that no entry of the guide's layout
// list covers (its dir, or a dir above it: bench/) and for an entry whose
// dir is gone.
func checkLayoutList(t *testing.T, doc string, pkgs []string) {
	block, err := section(doc, "## Layout")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, line := range strings.Split(block, "\n") {
		if line == "" || line[0] == ' ' {
			continue
		}
		dir, _, _ := strings.Cut(line, " ")
		if !strings.HasSuffix(dir, "/") {
			t.Errorf("DEVELOPERS.md's layout: %q does not start with a dir/", line)
			continue
		}
		dirs = append(dirs, dir)
		if fi, err := os.Stat(filepath.Join("../..", dir)); err != nil || !fi.IsDir() {
			t.Errorf("DEVELOPERS.md's layout lists %s, which is not a dir of the repository", dir)
		}
	}
	for _, p := range pkgs {
		if !slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(p+"/", d) }) {
			t.Errorf("DEVELOPERS.md's layout list has no entry for package %s", p)
		}
	}
}

// section returns the first fenced block after the line heading.
func section(doc, heading string) (string, error) {
	_, after, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		return "", fmt.Errorf("DEVELOPERS.md has no %q section", heading)
	}
	_, after, ok = strings.Cut(after, "```\n")
	if !ok {
		return "", fmt.Errorf("DEVELOPERS.md's %q section has no ``` block", heading)
	}
	block, _, ok := strings.Cut(after, "```")
	if !ok {
		return "", fmt.Errorf("DEVELOPERS.md's %q block is not closed", heading)
	}
	return block, nil
}

// parseImports reads an imports block: lines "a, b → c, d" (a and b each
// import c and d), or "a → nothing"; a line that starts with a space goes
// on with the line above. A package on several lines imports their union.
func parseImports(block string) (map[string][]string, error) {
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		switch {
		case strings.TrimSpace(l) == "":
		case l[0] == ' ' && len(lines) > 0:
			lines[len(lines)-1] += " " + strings.TrimSpace(l)
		default:
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	imports := make(map[string][]string)
	for _, l := range lines {
		left, right, ok := strings.Cut(l, "→")
		if !ok {
			return nil, fmt.Errorf("%q has no →", l)
		}
		from, err := names(left)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", l, err)
		}
		to, err := names(right)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", l, err)
		}
		if slices.Equal(to, []string{nothing}) {
			to = nil
		} else if slices.Contains(to, nothing) {
			return nil, fmt.Errorf("%q: %q with other packages", l, nothing)
		}
		for _, f := range from {
			imports[f] = append(imports[f], to...)
		}
	}
	return imports, nil
}

// names splits a comma-separated list of package paths.
func names(s string) ([]string, error) {
	var out []string
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if n == "" || strings.ContainsAny(n, " \t") {
			return nil, fmt.Errorf("bad package name %q", n)
		}
		out = append(out, strings.TrimSuffix(n, "/"))
	}
	return out, nil
}

// realImports is what `go list` says each package of the module imports
// of the module (test files aside), the union over goos.
func realImports(t *testing.T) map[string][]string {
	outs := make([]string, len(goos))
	errs := make([]error, len(goos))
	var wg sync.WaitGroup
	for i, g := range goos {
		wg.Go(func() { outs[i], errs[i] = goList(g) })
	}
	wg.Wait()
	imports := make(map[string][]string)
	for i, out := range outs {
		if errs[i] != nil {
			t.Fatalf("go list for %s: %v", goos[i], errs[i])
		}
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 0 {
				continue
			}
			from := strings.TrimPrefix(f[0], module)
			if _, ok := imports[from]; !ok {
				imports[from] = nil
			}
			for _, to := range f[1:] {
				if strings.HasPrefix(to, module) {
					imports[from] = append(imports[from], strings.TrimPrefix(to, module))
				}
			}
		}
	}
	return imports
}

// goList lists the module's packages with their imports when built for
// system g (GOARCH left to go's default for it).
func goList(g string) (string, error) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOOS="+g, "GOARCH=", "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		return "", err
	}
	return string(out), nil
}

// diff returns the arrows of a that b lacks, sorted.
func diff(a, b map[string][]string) []arrow {
	var out []arrow
	for _, from := range sortedKeys(a) {
		for _, to := range a[from] {
			if !slices.Contains(b[from], to) && !slices.Contains(out, arrow{from, to}) {
				out = append(out, arrow{from, to})
			}
		}
	}
	slices.SortFunc(out, func(x, y arrow) int { return strings.Compare(x.String(), y.String()) })
	return out
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestParseImports holds the block's grammar: lists on either side,
// continuation lines, "nothing", and the lines it refuses.
func TestParseImports(t *testing.T) {
	for _, tt := range []struct {
		name, block string
		want        map[string][]string
		err         bool
	}{
		{name: "one", block: "a → b, c/d\n", want: map[string][]string{"a": {"b", "c/d"}}},
		{name: "continued", block: "a → b,\n      c\nd → nothing\n",
			want: map[string][]string{"a": {"b", "c"}, "d": nil}},
		{name: "several left", block: "a, b/ → c\nb → d\n",
			want: map[string][]string{"a": {"c"}, "b": {"c", "d"}}},
		{name: "continued line has no arrow", block: "a → c\n b → d\n", err: true},
		{name: "union", block: "a → b\na → c\n", want: map[string][]string{"a": {"b", "c"}}},
		{name: "no arrow", block: "a b\n", err: true},
		{name: "empty name", block: "a → b,, c\n", err: true},
		{name: "space in name", block: "a → b c\n", err: true},
		{name: "nothing and more", block: "a → nothing, b\n", err: true},
		{name: "empty right", block: "a →\n", err: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseImports(tt.block)
			if (err != nil) != tt.err {
				t.Fatalf("parseImports(%q) error %v, want error %v", tt.block, err, tt.err)
			}
			if err == nil && !equal(got, tt.want) {
				t.Errorf("parseImports(%q) = %v, want %v", tt.block, got, tt.want)
			}
		})
	}
}

func equal(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !slices.Equal(v, w) {
			return false
		}
	}
	return true
}

package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// Case is one output of a real tool and what a model must see of it.
type Case struct {
	Name   string
	Output []byte   // the raw output, stdout and stderr merged
	Keys   []string // substrings of cleaned lines that a preview must show
	Clean  bool     // a clean run: no highlight may appear
	// Heldout marks a case kept out of the detector's tuning (a file
	// "heldout" in its directory): its keys were written before the
	// detector ran on it, and its score is reported apart.
	Heldout bool
	// Set names the evaluation set the case was made for (the first line
	// of a file "set" in its directory, e.g. "issue 28", the issue whose
	// held-out cases they are), "" for none: a set's
	// held-out and tuned halves are scored apart.
	Set string
}

// Load reads every case under dir (testdata/outputs).
func Load(dir string) ([]Case, error) {
	return loadAll(dir, true)
}

// LoadForTests is Load for the tests of the default run: the generated
// cases are smaller (QuickMinified bytes of minified JSON, not 3 MB;
// QuickJSONLines records of JSON lines, not 60,000) unless TOOLD_LONG is
// set (testenv.Long), when it is Load. The minified JSON's one line is
// still longer than a scan's block (64 KiB), the detector's kept line
// (4 KiB) and both ends a capture keeps at maxBytes 2000 (64 KiB each). A
// Scan of the 3 MB line took 54 s under -race, of the 60,000 records 1 s.
// The generated outputs are made once a process.
func LoadForTests(dir string) ([]Case, error) {
	return loadAll(dir, testenv.Long())
}

// The sizes of the generated cases in LoadForTests' default run: bytes of
// minified-json-3mb, records of jsonl-60k (its ERROR record as far in).
const (
	QuickMinified  = 256 << 10
	QuickJSONLines = 6000
)

func loadAll(dir string, full bool) ([]Case, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	var cs []Case
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		c, err := loadCase(filepath.Join(dir, e.Name()), full)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	return cs, nil
}

func loadCase(dir string, full bool) (Case, error) {
	c := Case{Name: filepath.Base(dir)}
	kb, err := os.ReadFile(filepath.Join(dir, "keys.txt"))
	if err != nil {
		return c, fmt.Errorf("corpus: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(kb))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "# clean"):
			c.Clean = true
		case l == "" || strings.HasPrefix(l, "#"):
		default:
			c.Keys = append(c.Keys, l)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "heldout")); err == nil {
		c.Heldout = true
	}
	if b, err := os.ReadFile(filepath.Join(dir, "set")); err == nil {
		c.Set, _, _ = strings.Cut(strings.TrimSpace(string(b)), "\n")
	}
	if gen := generator(c.Name, full); gen != nil {
		c.Output = generated(c.Name, full, gen)
		return c, nil
	}
	c.Output, err = os.ReadFile(filepath.Join(dir, "output.txt"))
	if err != nil {
		return c, fmt.Errorf("corpus: %w", err)
	}
	return c, nil
}

// generators make the cases kept as a recipe rather than as bytes.
var generators = map[string]func() []byte{
	"jsonl-60k":         JSONLines,
	"minified-json-3mb": MinifiedJSON,
}

// generator is the function that makes case name, nil for a kept one.
func generator(name string, full bool) func() []byte {
	switch {
	case full:
		return generators[name]
	case name == "minified-json-3mb":
		return func() []byte { return minifiedJSON(QuickMinified) }
	case name == "jsonl-60k":
		return func() []byte { return JSONLinesOf(QuickJSONLines) }
	}
	return generators[name]
}

// made holds the generated outputs by name and size: each took seconds
// under -race, and a test package loads the corpus in several tests.
var made sync.Map // "name full" -> []byte

// generated returns a copy of what gen makes for case name, made once.
func generated(name string, full bool, gen func() []byte) []byte {
	key := fmt.Sprint(name, " ", full)
	if b, ok := made.Load(key); ok {
		return bytes.Clone(b.([]byte))
	}
	b, _ := made.LoadOrStore(key, gen())
	return bytes.Clone(b.([]byte))
}

// JSONLines is a service's log of 60,000 records written by log/slog's JSON
// handler, one of which (record 41,337) is at level ERROR.
func JSONLines() []byte { return JSONLinesOf(60000) }

// JSONLinesOf is JSONLines of n records, its ERROR record as far in
// (n*41337/60000): the quick run's is JSONLinesOf(QuickJSONLines).
func JSONLinesOf(n int) []byte { return jsonLines(n, n*41337/60000) }

// jsonLines is JSONLines of n records, the one at level ERROR at errAt.
// It writes the bytes slog's JSON handler writes for them (highlight's
// TestCorpusJSONLines holds it to the handler), at a fraction of the
// handler's cost: the handler took 0.2 s for the quick run's 6,000
// records under -race, in each test package that loads the corpus.
func jsonLines(n, errAt int) []byte {
	t0 := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(7, 60000))
	paths := []string{"/api/items", "/api/users", "/healthz", "/api/orders", "/metrics"}
	b := make([]byte, 0, n*160)
	for i := range n {
		t0 = t0.Add(time.Duration(r.IntN(90)) * time.Millisecond)
		b = t0.AppendFormat(append(b, `{"time":"`...), time.RFC3339Nano)
		switch {
		case i == errAt:
			b = append(b, `","level":"ERROR","msg":"payment provider refused the charge","order":"ord_8812","status":502,`+
				`"err":"upstream connect error or disconnect/reset before headers"}`+"\n"...)
		case i%997 == 0:
			b = fmt.Appendf(b, `","level":"DEBUG","msg":"pool stats","open":%d,"idle":%d}`+"\n", r.IntN(50), r.IntN(20))
		default:
			b = fmt.Appendf(b, `","level":"INFO","msg":"request","id":"%016x","path":%q,"status":200,"ms":%d,"bytes":%d}`+"\n",
				r.Uint64(), paths[r.IntN(len(paths))], r.IntN(300), r.IntN(90000))
		}
	}
	return b
}

// MinifiedJSON is what cat prints of a 3 MB minified JSON file: one line,
// no newline at its end.
func MinifiedJSON() []byte { return minifiedJSON(3 << 20) }

// minifiedJSON is MinifiedJSON of about size bytes: the first of its items.
func minifiedJSON(size int) []byte {
	type item struct {
		ID    int      `json:"id"`
		Name  string   `json:"name"`
		Tags  []string `json:"tags"`
		Price float64  `json:"price"`
	}
	r := rand.New(rand.NewPCG(3, 3))
	var items []item
	for n := 0; n < size; {
		it := item{ID: len(items), Name: fmt.Sprintf("item-%d-%x", len(items), r.Uint32()),
			Tags: []string{"a", "bb", fmt.Sprint(r.IntN(100))}, Price: float64(r.IntN(100000)) / 100}
		items = append(items, it)
		n += 70
	}
	b, err := json.Marshal(map[string]any{"version": 3, "items": items})
	if err != nil {
		panic(err) // cannot happen: plain types
	}
	return b
}

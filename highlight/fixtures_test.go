package highlight

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toold/toold/internal/corpus"
	"github.com/toold/toold/internal/testenv"
)

// The inputs several tests read are made once a run: the corpus loaded
// (seven tests loaded it, each generating its two recipes' outputs anew
// and cutting the long ones to quickOutput's), the rule samples, the lines
// of fastLines, the error-dense log. No test changes them: a test that
// appends to one copies it first.

// loadCorpus is corpus.LoadForTests of testdata/outputs, once.
var loadCorpus = sync.OnceValues(func() ([]corpus.Case, error) {
	return corpus.LoadForTests("../testdata/outputs")
})

// fixture is what get (one of the sync.OnceValues here) made, failing t
// when it failed.
func fixture[T any](t testing.TB, get func() (T, error)) T {
	t.Helper()
	v, err := get()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// testCorpus is the corpus as tests load it.
func testCorpus(t testing.TB) []corpus.Case { return fixture(t, loadCorpus) }

// loadSamples reads the rule samples, testdata/highlight/*.txt, once.
var loadSamples = sync.OnceValues(func() ([][]byte, error) {
	fs, err := filepath.Glob("../testdata/highlight/*.txt")
	var outs [][]byte
	for _, f := range fs {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		outs = append(outs, b)
	}
	return outs, err
})

// samplesRead are the rule samples' outputs, in their files' order.
func samplesRead(t testing.TB) [][]byte { return fixture(t, loadSamples) }

// quickCorpus are the corpus's outputs as quickOutput cuts them, once.
var quickCorpus = sync.OnceValues(func() ([][]byte, error) {
	cs, err := loadCorpus()
	var outs [][]byte
	for _, c := range cs {
		outs = append(outs, quickOutput(c.Output, c.Keys))
	}
	return outs, err
})

// sampleOutputs are the outputs of the corpus (see quickOutput) and of the
// highlight samples.
func sampleOutputs(t testing.TB) [][]byte {
	t.Helper()
	outs := fixture(t, quickCorpus)
	return append(outs[:len(outs):len(outs)], samplesRead(t)...)
}

// quickErrorLog is the error-dense log of TestParallelIsDetector and
// TestTemplatesPruned: 256 KiB in the quick run, 1 MiB with TOOLD_LONG=1.
var quickErrorLog = sync.OnceValue(func() []byte {
	return errorLog(testenv.Size(256<<10, 1<<20))
})

// quickScans are Scan(out, Options{}) of quickCorpus's outputs, in order,
// made once: TestBlockIsLine compares them with Line's, and TestCorpus
// checks their groups in the quick run (the corpus whole cost it 1.4 CPU-s
// under -race, a scan TestBlockIsLine had made of the same lines).
var quickScans = sync.OnceValues(func() ([]Result, error) {
	outs, err := quickCorpus()
	var rs []Result
	for _, out := range outs {
		rs = append(rs, Scan(out, Options{}))
	}
	return rs, err
})

// corpusScans are Scan(c.Output, Options{}) of the corpus's cases by name,
// each made once, at its first call (TestCorpus scans every case,
// TestPytestEvidence two of them, twice each).
var corpusScans = sync.OnceValues(func() (map[string]func() Result, error) {
	cs, err := loadCorpus()
	scans := map[string]func() Result{}
	for _, c := range cs {
		scans[c.Name] = sync.OnceValue(func() Result { return Scan(c.Output, Options{}) })
	}
	return scans, err
})

// corpusScan is Scan(c.Output, Options{}) of the corpus case named name.
func corpusScan(t testing.TB, name string) Result {
	t.Helper()
	scan, ok := fixture(t, corpusScans)[name]
	if !ok {
		t.Fatalf("no corpus case %s", name)
	}
	return scan()
}

// quickPick is what of all the quick run's case i takes: one of them, in
// turn, so that each is taken by every len(all)th case; all of them with
// TOOLD_LONG=1. For tests that hold two ways to the same result over many
// outputs, each at several settings: every setting still meets many
// outputs.
func quickPick[T any](all []T, i int) []T {
	if testenv.Long() {
		return all
	}
	j := i % len(all)
	return all[j : j+1]
}

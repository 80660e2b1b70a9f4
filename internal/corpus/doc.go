// Package corpus loads the outputs of real tools kept in testdata/outputs
// (one directory per case: output.txt, keys.txt, gen.sh) for the highlight
// tests, the exec tests and bench/previews. Cases too large to keep in git
// (a 60,000-record JSON-lines log, a 3 MB one-line JSON file) are made here
// at load time from a fixed seed, so that every run sees the same bytes:
// the JSON file by encoding/json, the log as log/slog's JSON handler
// writes it (written directly, which costs a fraction of the handler;
// highlight's TestCorpusJSONLines holds the two equal). LoadForTests makes them
// smaller in the quick test run (a 256 KiB line, 6,000 records) and whole
// with TOOLD_LONG=1; bench/previews and the benchmarks use Load, whole.
package corpus

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestSearchHugeDirectory greps, finds and lists a directory of 100,000
// files with toold call (a daemon in the process, built without -race), and
// checks the answers
// and that the process's peak RSS stays under 64 MiB. Slow to set up: it
// runs with TOOLD_SLOW=1 (.ci/run sets it).
func TestSearchHugeDirectory(t *testing.T) {
	if os.Getenv("TOOLD_SLOW") == "" {
		t.Skip("set TOOLD_SLOW=1 to search a directory of 100,000 files")
	}
	dir := t.TempDir()
	for i := range 100000 {
		body := "file " + strconv.Itoa(i) + "\nneedle " + strconv.Itoa(i) + "\n"
		if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)+".txt"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Without -race, whose shadow memory would be most of what is measured.
	bin := filepath.Join(t.TempDir(), "toold")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const maxRSS = 64 << 20
	for _, tt := range []struct {
		method, params string
		check          func(raw []byte) bool
	}{
		{"grep", `{"pattern":"needle 9999\\b","path":"` + dir + `"}`, func(raw []byte) bool {
			var r grepResult
			return json.Unmarshal(raw, &r) == nil && r.TotalMatches == 1 && r.Files[0].Path == "f9999.txt"
		}},
		{"grep", `{"pattern":"needle","path":"` + dir + `","limit":2000}`, func(raw []byte) bool {
			var r grepResult
			return json.Unmarshal(raw, &r) == nil && ctStr(r.LimitReached) != "<nil>" && r.Files[0].Path == "f0.txt"
		}},
		{"find", `{"path":"` + dir + `","pattern":"*.txt"}`, func(raw []byte) bool {
			var r entriesResult
			return json.Unmarshal(raw, &r) == nil && r.Total == 100000 && len(r.Entries) == 1000 && r.Entries[0] == "f0.txt"
		}},
		{"ls", `{"path":"` + dir + `"}`, func(raw []byte) bool {
			var r entriesResult
			return json.Unmarshal(raw, &r) == nil && r.Total == 100000 && len(r.Entries) == 500
		}},
	} {
		cmd := exec.Command(bin, "call", tt.method, tt.params)
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("%s %s: %v\n%.2000s", tt.method, tt.params, err, stderr)
		}
		if !tt.check(out) {
			t.Errorf("%s %s: %.300s", tt.method, tt.params, out)
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
		t.Logf("%s %s: peak RSS %.1f MiB", tt.method, tt.params, float64(rss)/(1<<20))
		if rss > maxRSS {
			t.Errorf("%s: peak RSS %d MiB, over %d MiB", tt.method, rss>>20, maxRSS>>20)
		}
	}
}

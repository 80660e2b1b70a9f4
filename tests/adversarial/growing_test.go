package adversarial

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

type cacheStats struct {
	Cache struct {
		Hits          int64 `json:"hits"`
		Misses        int64 `json:"misses"`
		Invalidations int64 `json:"invalidations"`
	} `json:"cache"`
}

// TestGrowingLogPolled: a log that grows while a reader
// polls its end. The watcher's Write events arrive after reads that already
// saw the new size; main took them for a rewrite and rebuilt the index from
// scratch (150 ms on 1 GiB). Here every read extends: one build, no
// invalidation, and the last lines are always the newest. Polls and
// appends go on for 20 s.
func TestGrowingLogPolled(t *testing.T) {
	// The quick run keeps TestSpecialFiles instead.
	skipUnlessLong(t, "a log that grows while polled")
	t.Parallel() // daemons and files of its own: it waits beside the others
	const dur = 20 * time.Second
	path := filepath.Join(t.TempDir(), "app.log")
	var seed []byte // "seed line N\n" (appended, not Fprintf'd: a tenth of the case's CPU under -race)
	for i := range 100_000 {
		seed = append(strconv.AppendInt(append(seed, "seed line "...), int64(i), 10), '\n')
	}
	write(t, path, string(seed))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	appends := 0
	go func() {
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			case <-time.After(3 * time.Millisecond):
			}
			fmt.Fprintf(f, "appended line %d\n", n)
			appends++
		}
	}()
	c := startStdio(t, false)
	reads := 0
	for end := time.Now().Add(dur); time.Now().Before(end); reads++ {
		var w window
		c.ok("read", map[string]any{"path": path, "offset": 1, "limit": 1}, &w)
		c.ok("read", map[string]any{"path": path, "offset": max(1, w.TotalLines-9)}, &w)
		if !strings.Contains(w.Content, "line") {
			t.Fatalf("tail read: %+v", w)
		}
	}
	close(stop)
	wg.Wait()
	var st cacheStats
	c.ok("stats", nil, &st)
	t.Logf("%d polls, %d appends: %+v", reads, appends, st.Cache)
	if st.Cache.Misses != 1 || st.Cache.Invalidations != 0 {
		t.Errorf("want one build and no invalidation while the log only grew, got %+v", st.Cache)
	}
}

// TestHardLinksShareAnIndex: many names of one big file cost one index
// build and one cache entry (main built one per name).
func TestHardLinksShareAnIndex(t *testing.T) {
	// The quick run keeps TestSpecialFiles instead.
	skipUnlessLong(t, "hard links to one indexed file")
	t.Parallel() // daemons and files of its own: it waits beside the others
	dir := t.TempDir()
	path := filepath.Join(dir, "big.log")
	write(t, path, strings.Repeat("a line that is shared by every link\n", 100_000))
	names := []string{path}
	for i := range 20 {
		name := filepath.Join(dir, fmt.Sprintf("link%d", i))
		if err := os.Link(path, name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	c := startStdio(t, false)
	for _, n := range names {
		var w window
		c.ok("read", map[string]any{"path": n, "offset": 50_000, "limit": 1}, &w)
	}
	var st struct {
		Cache struct {
			Entries int   `json:"entries"`
			Misses  int64 `json:"misses"`
		} `json:"cache"`
	}
	c.ok("stats", nil, &st)
	if st.Cache.Entries != 1 || st.Cache.Misses != 1 {
		t.Errorf("21 names of one file: %+v, want one entry built once", st.Cache)
	}
}

// TestSoftMemoryLimit: the daemon sets a soft memory limit from its cache
// budget (4 x 64 MiB), so that the GC works before the heap doubles past
// what is live; GOMEMLIMIT, when set, wins. Main set none.
func TestSoftMemoryLimit(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	for _, tt := range []struct {
		env  string
		want string
	}{{"", "bytes=268435456"}, {"GOMEMLIMIT=123456789", "bytes=123456789"}} {
		cmd := exec.Command(binPath, "--log-level", "debug", "--spool-root", filepath.Join(t.TempDir(), "spool"))
		cmd.Env = append(os.Environ(), tt.env)
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"stats"}` + "\n")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		testenv.CheckNoRace(t, "the daemon", string(out))
		line := ""
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "soft memory limit") {
				line = l
			}
		}
		if !strings.Contains(line, tt.want) {
			t.Errorf("%s: want %s, got %q", tt.env, tt.want, line)
		}
	}
}

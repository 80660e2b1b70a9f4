package adversarial

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFiles reads files whose stat size says nothing of their
// content, and files that are no files at all. Issue 8 item 8: main read
// /proc/cpuinfo as empty and a sysfs file as -32603 "EOF".
func TestSpecialFiles(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "empty"), "")
	tests := []struct {
		name     string
		path     string
		code     int64
		contains string // in the content of a window
	}{
		{"procfs, size 0", "/proc/cpuinfo", 0, "processor"},
		{"procfs of the daemon", "/proc/self/status", 0, "Name:"},
		{"procfs, static", "/proc/version", 0, "Linux"},
		{"sysfs, size 4096", sysfsFile(t), 0, ""},
		{"sysfs, size 4096, empty", emptySysfsFile(t), 0, ""},
		{"FIFO", fifo, codeNoSuchFile, ""},
		{"character device", "/dev/null", codeNoSuchFile, ""},
		{"directory", dir, codeIsDirectory, ""},
		{"empty file", filepath.Join(dir, "empty"), 0, ""},
	}
	c := startStdio(t, false)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.path == "" {
				t.Skip("no such file on this machine")
			}
			c.t = t
			r := c.call("read", map[string]any{"path": tt.path})
			if tt.code != 0 {
				if r.Error == nil || r.Error.Code != tt.code {
					t.Fatalf("want error %d, got %v %s", tt.code, r.Error, r.Result)
				}
				return
			}
			if r.Error != nil {
				t.Fatal(r.Error)
			}
			var w window
			json.Unmarshal(r.Result, &w)
			if !strings.Contains(w.Content, tt.contains) || w.Binary {
				t.Fatalf("want a text window holding %q, got %s", tt.contains, r.Result)
			}
			if want, err := os.ReadFile(tt.path); err == nil && len(want) > 0 && w.TotalLines == 0 {
				t.Fatalf("%d bytes read as an empty file: %s", len(want), r.Result)
			}
		})
	}
}

// sysfsFile returns a small sysfs file that exists here, or "".
func sysfsFile(t *testing.T) string {
	for _, p := range []string{"/sys/kernel/mm/transparent_hugepage/enabled", "/sys/devices/system/cpu/online",
		"/sys/class/net/lo/mtu", "/sys/kernel/uevent_seqnum"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			if _, err := os.ReadFile(p); err == nil {
				return p
			}
		}
	}
	return ""
}

// emptySysfsFile returns a sysfs file that reads empty here, or "".
func emptySysfsFile(t *testing.T) string {
	found := ""
	seen := 0
	filepath.WalkDir("/sys/power", func(p string, d os.DirEntry, err error) error {
		if err != nil || found != "" || seen > 500 {
			return filepath.SkipDir
		}
		seen++
		if d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && len(b) == 0 {
				found = p
			}
		}
		return nil
	})
	return found
}

// TestSpecialFilesWalk walks static pseudo files with readBytes: the windows
// put together give the file back, as for any file.
func TestSpecialFilesWalk(t *testing.T) {
	// The quick run keeps TestSpecialFiles instead.
	skipUnlessLong(t, "special files met by walks")
	t.Parallel() // daemons and files of its own: it waits beside the others
	c := startStdio(t, true)
	for _, path := range []string{"/proc/version", "/proc/self/cmdline", sysfsFile(t)} {
		if path == "" {
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if path == "/proc/self/cmdline" {
			continue // the daemon's own differs; it is binary (NULs) anyway
		}
		var got strings.Builder
		start := int64(0)
		for i := 0; ; i++ {
			var w window
			c.ok("readBytes", map[string]any{"path": path, "startByte": start, "maxBytes": 7}, &w)
			got.WriteString(w.Content)
			if w.Next == nil || w.Next.StartByte == nil {
				break
			}
			start = *w.Next.StartByte
			if i > 10000 {
				t.Fatalf("%s: the walk does not end", path)
			}
		}
		if got.String() != string(want) {
			t.Errorf("%s: the walk gave %q, want %q", path, got.String(), want)
		}
	}
}

// TestTextEncodings: a short Latin-1 file (file(1):
// "ISO-8859 text") was refused as binary; it is text, shown with U+FFFD.
// NUL bytes and control characters still make a file binary.
func TestTextEncodings(t *testing.T) {
	// The quick run keeps TestSpecialFiles instead.
	skipUnlessLong(t, "text in other encodings")
	t.Parallel() // daemons and files of its own: it waits beside the others
	dir := t.TempDir()
	tests := []struct {
		name, content string
		binary        bool
		contains      string
	}{
		{"short latin-1", "\xe9t\xe9 \xe0 Z\xfcrich\n", false, "t\uFFFD \uFFFD Z\uFFFDrich"},
		{"latin-1 word", "na\xefve\n", false, "na\uFFFDve"},
		{"cp1252 quotes", "\x93hi\x94\n", false, "hi"},
		{"utf-8", "Grüße\n", false, "Grüße"},
		{"NUL", "text\x00more\n", true, ""},
		{"controls", strings.Repeat("\x01\x02\x03a", 40), true, ""},
	}
	c := startStdio(t, false)
	for _, tt := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
		write(t, path, tt.content)
		var w window
		c.ok("read", map[string]any{"path": path}, &w)
		if w.Binary != tt.binary || !strings.Contains(w.Content, tt.contains) {
			t.Errorf("%s: want binary=%v holding %q, got %+v", tt.name, tt.binary, tt.contains, w)
		}
		if !tt.binary && w.Notice != nil && strings.Contains(*w.Notice, "Binary") {
			t.Errorf("%s: a text file with a binary notice: %s", tt.name, *w.Notice)
		}
	}
}

// TestFileChangingWhileRead rewrites a file in place (same inode, other
// sizes) while it is read: every reply is a window or -32001 "changed while
// read", never -32603 (main answered "EOF" for a short read).
//
// 50,000 reads of the default window, in batches of 32.
func TestFileChangingWhileRead(t *testing.T) {
	// The quick run keeps TestSpecialFiles instead.
	skipUnlessLong(t, "files that change while read")
	t.Parallel() // daemons and files of its own: it waits beside the others
	const reads = 50_000
	path := filepath.Join(t.TempDir(), "churn.txt")
	big := strings.Repeat("a long line of the big version\n", 5000)
	small := "small\n"
	write(t, path, big)
	stop := make(chan struct{})
	rewrites := newPacer()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := int64(0); rewrites.wait(i, stop); i++ {
			content := big
			if i%2 == 1 {
				content = small
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Error(err)
				return
			}
			f.WriteString(content)
			f.Close()
			time.Sleep(50 * time.Microsecond)
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	c := startStdio(t, false)
	counts := map[string]int{}
	for done := 0; done < reads; done += 32 {
		var batch []<-chan reply
		for i := 0; i < 32; i++ {
			method, params := "read", map[string]any{"path": path, "offset": 1 + i*10}
			if i%2 == 1 {
				method, params = "readBytes", map[string]any{"path": path, "startByte": i * 100}
			}
			batch = append(batch, c.send(method, params))
		}
		rewrites.allow(1) // a rewrite a read, while they run
		for _, ch := range batch {
			r := <-ch
			rewrites.allow(1)
			switch {
			case r.Error == nil:
				counts["window"]++
			case r.Error.Code == codeNoSuchFile && strings.Contains(r.Error.Message, "changed while read"):
				counts["changed while read"]++
			default:
				counts["other"]++
				t.Errorf("want a window or -32001 changed while read, got %v", r.Error)
			}
		}
		if t.Failed() {
			break
		}
	}
	t.Logf("outcomes: %v; %d rewrites", counts, rewrites.used.Load())
	if n := rewrites.used.Load(); n < int64(reads/10) {
		t.Errorf("%d rewrites beside %d reads: the file hardly changed while read", n, reads)
	}
}

package truncate

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// binarySamples are files whose kind file(1) and git agree on; margin marks
// those where IsBinary keeps its margin over file(1)'s one-control-byte rule.
// binarySample is a sample of bytes and whether it is binary; margin
// ones are where tools may disagree.
type binarySample struct {
	name   string
	data   []byte
	binary bool
	margin bool
}

func binarySamples(t *testing.T) []binarySample {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("compress me "), 500))
	zw.Close()
	exe, err := readHead("/proc/self/exe", 8192) // not the whole -race binary, tens of MB, thrice a run
	if err != nil || len(exe) < 8192 {
		exe = append([]byte("\x7fELF\x02\x01\x01\x00"), random...)
	}
	u16 := []byte{0xff, 0xfe}
	for _, r := range utf16.Encode([]rune("hello, wide world\n")) {
		u16 = append(u16, byte(r), byte(r>>8))
	}
	return []binarySample{
		{"ascii", []byte("plain text\n"), false, false},
		{"utf-8", []byte("Grüße, 日本語\n"), false, false},
		{"short latin-1", []byte("\xe9t\xe9 \xe0 Z\xfcrich\n"), false, false},
		{"latin-1 page", bytes.Repeat([]byte("Gr\xfc\xdfe aus K\xf6ln, \xe0 bient\xf4t\n"), 100), false, false},
		{"cp1252 quotes", []byte("\x93quoted\x94 \x96 dash\n"), false, false},
		{"ansi colors", []byte("\x1b[31mred\x1b[0m and \a bell\n"), false, false},
		{"one stray SI", []byte("\x1b[m\x0fcolored output of a build that goes on for a while\n"), false, true},
		{"random bytes", random, true, false},
		{"gzip", gz.Bytes(), true, false},
		{"executable", exe[:8192], true, false},
		{"utf-16", u16, true, false},
		{"control soup", bytes.Repeat([]byte{1, 2, 3, 'a'}, 50), true, false},
	}
}

// readHead reads the first n bytes of the file at path, fewer if it is
// shorter.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err == io.ErrUnexpectedEOF {
		err = nil
	}
	return b[:k], err
}

func TestIsBinaryTable(t *testing.T) {
	for _, tt := range binarySamples(t) {
		if got := IsBinary(tt.data); got != tt.binary {
			t.Errorf("%s: IsBinary = %v, want %v", tt.name, got, tt.binary)
		}
	}
}

// TestIsBinaryAgreesWithFile checks the samples against file(1) itself:
// binary exactly where it says the encoding is "binary", margin cases apart.
func TestIsBinaryAgreesWithFile(t *testing.T) {
	if _, err := exec.LookPath("file"); err != nil {
		t.Skip("file(1) is not installed")
	}
	// One file(1) for every sample (a process each cost a quarter of a
	// CPU-second a run under a loaded machine): it prints one line a path,
	// in their order.
	dir := t.TempDir()
	var samples []binarySample
	args := []string{"-b", "--mime-encoding"}
	for _, tt := range binarySamples(t) {
		if tt.margin {
			continue
		}
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
		if err := os.WriteFile(path, tt.data, 0o600); err != nil {
			t.Fatal(err)
		}
		samples, args = append(samples, tt), append(args, path)
	}
	out, err := exec.Command("file", args...).Output()
	if err != nil {
		t.Fatalf("file: %v", err)
	}
	encs := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(encs) != len(samples) {
		t.Fatalf("file(1) printed %d lines for %d files: %q", len(encs), len(samples), out)
	}
	for i, tt := range samples {
		enc := strings.TrimSpace(encs[i])
		// UTF-16 is text to file(1) but binary to git, for its NUL bytes.
		if fileSays := enc == "binary" || enc == "utf-16le"; fileSays != tt.binary {
			t.Errorf("%s: file(1) says %q, the table says binary=%v", tt.name, enc, tt.binary)
		}
	}
}

// FuzzIsBinary checks IsBinary's definition on any bytes: a NUL makes a
// sample binary, bytes above 0x7F never do, and only the first 8 KiB count.
func FuzzIsBinary(f *testing.F) {
	f.Add([]byte("plain\n"))
	f.Add([]byte("caf\xe9\n"))
	f.Add([]byte{0xff, 0xfe, 0, 'a'})
	f.Add([]byte("\x1b[31m\x0f\x01\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := IsBinary(b)
		head := b[:min(len(b), sniffLen)]
		if bytes.IndexByte(head, 0) >= 0 && !got {
			t.Fatalf("%q: a NUL and not binary", b)
		}
		// Bytes above 0x7F turned into letters change nothing.
		ascii := bytes.Clone(b)
		for i, c := range ascii {
			if c >= 0x80 {
				ascii[i] = 'x'
			}
		}
		if IsBinary(ascii) != got {
			t.Fatalf("%q: bytes above 0x7F changed the verdict", b)
		}
		if IsBinary(append(bytes.Clone(head), 0)) != got && len(b) >= sniffLen {
			t.Fatalf("%q: a byte past 8 KiB changed the verdict", b)
		}
	})
}

// TestIsBinaryAgreesWithGit checks the samples against git itself, which
// calls a file binary for a NUL byte in its first 8000 bytes: where git says
// binary, so does IsBinary; where IsBinary says binary without a NUL, it is
// for control characters, which file(1) also refuses.
func TestIsBinaryAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	// One git diff of an empty directory against the samples' (a process
	// a sample cost a quarter of a CPU-second a run): --numstat prints a
	// line a file, "-\t-\t" for a binary one, the path after "=> ".
	root := t.TempDir()
	dir, empty := filepath.Join(root, "s"), filepath.Join(root, "e")
	for _, d := range []string{dir, empty} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	samples := map[string]binarySample{}
	for _, tt := range binarySamples(t) {
		name := strings.ReplaceAll(tt.name, " ", "_")
		if err := os.WriteFile(filepath.Join(dir, name), tt.data, 0o600); err != nil {
			t.Fatal(err)
		}
		samples["s/"+name] = tt
	}
	// Exit status 1 means "differs".
	cmd := exec.Command("git", "diff", "--no-index", "--numstat", "e", "s")
	cmd.Dir = root
	out, _ := cmd.Output()
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		_, name, _ := strings.Cut(line, "=> ")
		tt, ok := samples[name]
		if !ok {
			t.Fatalf("git diff --numstat: a line of no sample: %q", line)
		}
		seen++
		gitSays := strings.HasPrefix(line, "-\t-\t")
		if gitSays && !IsBinary(tt.data) {
			t.Errorf("%s: git says binary, IsBinary says text", tt.name)
		}
		if !gitSays && IsBinary(tt.data) && bytes.IndexByte(tt.data, 0) >= 0 {
			t.Errorf("%s: a NUL byte, and git says text (%q)", tt.name, line)
		}
	}
	if seen != len(samples) {
		t.Errorf("git diff --numstat: %d lines for %d samples: %q", seen, len(samples), out)
	}
}

package methods

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"toold/fileindex"
	"toold/truncate"
)

// benchFile generates, once, a text file of TOOLD_BENCH_SIZE_MB megabytes
// (default 64) with lines of varied length around 100 bytes.
func benchFile(b *testing.B) (path string, lines int64) {
	mb := 64
	if s := os.Getenv("TOOLD_BENCH_SIZE_MB"); s != "" {
		mb, _ = strconv.Atoi(s)
	}
	path = filepath.Join(os.TempDir(), fmt.Sprintf("toold-methods-bench-%dMB.txt", mb))
	if fi, err := os.Stat(path); err == nil && fi.Size() >= int64(mb)<<20 {
		return path, 0
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	for i := 0; n < int64(mb)<<20; i++ {
		k, _ := fmt.Fprintf(w, "%09d %s\n", i, "the quick brown fox jumps over the lazy dog, again and again and again"[:30+i%40])
		n += int64(k)
	}
	w.Flush()
	f.Close()
	os.Rename(path+".tmp", path)
	return path, 0
}

// BenchmarkReadDeep reads 2000 lines from the middle of a large file, the
// window encoded as JSON as the daemon sends it.
func BenchmarkReadDeep(b *testing.B) {
	path, _ := benchFile(b)
	files, _ := fileindex.New(fileindex.Options{})
	defer files.Close()
	svc := &Service{Files: files}
	lr := &lineRequest{LineOptions: truncate.LineOptions{Limit: 2000, MaxBytes: MaxWindowBytes, MaxLineChars: 2000}}
	lr.offset = 1
	w, err := svc.window(context.Background(), path, lr, nil)
	if err != nil {
		b.Fatal(err)
	}
	lr.offset = w.TotalLines / 2
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := svc.window(context.Background(), path, lr, nil)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := json.Marshal(w)
		b.SetBytes(int64(len(out)))
	}
}

package methods

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/internal/testtext"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/truncate"
)

// BenchmarkReadDeep reads 2000 lines from the middle of a large file, the
// window encoded as JSON as the daemon sends it.
func BenchmarkReadDeep(b *testing.B) {
	path, _ := testtext.BenchFile(b)
	files, _ := fileindex.New(fileindex.Options{})
	defer files.Close()
	svc := &Service{Files: files}
	lr := &lineRequest{LineOptions: truncate.LineOptions{Limit: 2000, MaxBytes: protocol.MaxWindowBytes, MaxLineChars: 2000}}
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

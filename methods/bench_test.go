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
	open := pathOpener(path)
	w, err := svc.window(context.Background(), path, open, lr, nil)
	if err != nil {
		b.Fatal(err)
	}
	lr.offset = w.TotalLines / 2
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := svc.window(context.Background(), path, open, lr, nil)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := json.Marshal(w)
		b.SetBytes(int64(len(out)))
	}
}

// BenchmarkReadIfChanged reads 2000-line windows with ifChanged as a
// session pages a file: "reread" the same window again and again (answered
// unchanged), "forward" and "backward" the next window each time (the
// session's record grows: each read must cost its window, not what the
// session read before).
func BenchmarkReadIfChanged(b *testing.B) {
	path, _ := testtext.BenchFile(b)
	files, _ := fileindex.New(fileindex.Options{})
	defer files.Close()
	open := pathOpener(path)
	for _, mode := range []string{"reread", "forward", "backward"} {
		b.Run(mode, func(b *testing.B) {
			svc := &Service{Files: files}
			lr := &lineRequest{LineOptions: truncate.LineOptions{Limit: 2000, MaxBytes: protocol.MaxWindowBytes, MaxLineChars: 2000}}
			lr.offset, lr.ifChanged, lr.session = 1, true, "s"
			w, err := svc.window(context.Background(), path, open, lr, nil)
			if err != nil {
				b.Fatal(err)
			}
			total, mid := w.TotalLines, w.TotalLines/2
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				switch mode {
				case "reread":
					lr.offset = mid
				case "forward":
					lr.offset = 1 + int64(i)*2000%(total-2000)
				case "backward":
					lr.offset = total - 2000 - int64(i)*2000%(total-2000)
				}
				if _, err := svc.window(context.Background(), path, open, lr, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

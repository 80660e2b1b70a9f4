package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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
	open := middleOf(b, svc, path, lr)
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

// BenchmarkReadFitted reads windows from the middle of a file as toold
// mcp asks for them (16 KiB, within 24 KiB as rendered), "plain" without
// the render bound and "fitted" with it: in BenchFile, whose lines of ~100
// bytes fit as they are (the cost of measuring), and in a file of 4-byte
// lines, whose numbers push the rendering over, so that the window is cut
// (the cost of the search; toold mcp read it again, twice or more, before).
func BenchmarkReadFitted(b *testing.B) {
	long, _ := testtext.BenchFile(b)
	short := filepath.Join(b.TempDir(), "short")
	if err := os.WriteFile(short, bytes.Repeat([]byte("abc\n"), 1<<20), 0o644); err != nil {
		b.Fatal(err)
	}
	files, _ := fileindex.New(fileindex.Options{})
	defer files.Close()
	svc := &Service{Files: files}
	for _, tc := range []struct {
		name   string
		path   string
		budget int
	}{{"plain", long, 0}, {"fitted", long, protocol.MCPResultBytes}, {"short lines, plain", short, 0}, {"short lines, fitted", short, protocol.MCPResultBytes}} {
		path, budget := tc.path, tc.budget
		b.Run(tc.name, func(b *testing.B) {
			lr := &lineRequest{LineOptions: truncate.LineOptions{Limit: 2000, MaxBytes: protocol.MCPWindowBytes, MaxLineChars: 2000}, render: budget}
			open := middleOf(b, svc, path, lr)
			for i := 0; i < b.N; i++ {
				if _, err := svc.window(context.Background(), path, open, lr, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// middleOf reads path's first window (building its line index), sets lr
// to start in the file's middle, resets b's timer and returns the opener
// the benchmark reads path with.
func middleOf(b *testing.B, svc *Service, path string, lr *lineRequest) opener {
	open := pathOpener(path)
	lr.offset = 1
	w, err := svc.window(context.Background(), path, open, lr, nil)
	if err != nil {
		b.Fatal(err)
	}
	lr.offset = w.TotalLines / 2
	b.ResetTimer()
	return open
}

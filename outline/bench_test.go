package outline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkScanners feeds 16 MiB of each streamed format to its scanner in
// 256 KiB chunks (as the index build does): MB/s beside fileindex's
// BenchmarkBuild tells whether the outline or the newline count bounds a
// cold outlined read.
func BenchmarkScanners(b *testing.B) {
	gens := map[string]func(i int) string{
		Log: func(i int) string {
			return fmt.Sprintf("2024-05-01T%02d:%02d:%02d.123Z INFO [worker-3] request %d handled in 12ms path=/api/v1/items/%d\n", i/3600%24, i/60%60, i%60, i, i%1000)
		},
		JSON: func(i int) string {
			return fmt.Sprintf("  {\"id\": %d, \"name\": \"item %d\", \"tags\": [\"a\", \"b\"]},\n", i, i)
		},
		Markdown: func(i int) string {
			return fmt.Sprintf("## Section %d\n\nSome text of the section, long enough to be a paragraph.\n\n", i)
		},
		CSV:    func(i int) string { return fmt.Sprintf("%d,item %d,\"quoted, field\",%d.99\n", i, i, i%100) },
		Indent: func(i int) string { return fmt.Sprintf("block %d:\n    inner line %d\n\n", i, i) },
	}
	for format, gen := range gens {
		var data bytes.Buffer
		if format == JSON {
			data.WriteString("[\n")
		}
		for i := 0; data.Len() < 16<<20; i++ {
			data.WriteString(gen(i))
		}
		b.Run(format, func(b *testing.B) {
			b.SetBytes(int64(data.Len()))
			for b.Loop() {
				s := NewScanner(format, Options{})
				for p := data.Bytes(); len(p) > 0; {
					k := min(256<<10, len(p))
					s.Write(p[:k])
					p = p[k:]
				}
				s.Finish(0)
			}
		})
	}
}

// BenchmarkGoOutline outlines large Go files of the toolchain with Build,
// as a read with outline: true does once the file is indexed: go/ast's
// parse and, before it, the pass that measures the file.
func BenchmarkGoOutline(b *testing.B) {
	for _, rel := range []string{"src/net/http/server.go", "src/cmd/compile/internal/ssa/opGen.go"} {
		src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), rel))
		if err != nil {
			b.Skip(err)
		}
		lines := int64(bytes.Count(src, []byte{'\n'}))
		b.Run(filepath.Base(rel), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				o, err := Build(context.Background(), Go, rel, bytes.NewReader(src), int64(len(src)), lines, Options{})
				if err != nil || o == nil {
					b.Fatal(o, err)
				}
			}
		})
	}
}

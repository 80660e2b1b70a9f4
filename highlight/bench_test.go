package highlight

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/toold/toold/internal/corpus"
)

// logText returns about size bytes of log-like lines: the text, JSON and
// klog formats of services and build tools, with an error line among
// every 20,000.
func logText(size int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	paths := []string{"/api/items", "/api/users/42", "/healthz", "/static/app.js", "/api/orders"}
	words := []string{"request", "handled", "cache", "miss", "refresh", "token", "session", "started",
		"worker", "queue", "depth", "connected", "pool", "retrying", "default", "config", "loaded", "module"}
	var b bytes.Buffer
	for b.Len() < size {
		n := b.Len()
		switch r.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "time=2026-11-22T02:%02d:%02d.%03dZ level=INFO msg=%q path=%s status=%d ms=%d\n",
				r.IntN(60), r.IntN(60), r.IntN(1000), words[r.IntN(len(words))]+" "+words[r.IntN(len(words))], paths[r.IntN(len(paths))], 200, r.IntN(400))
		case 1:
			fmt.Fprintf(&b, `{"time":"2026-11-22T02:%02d:%02dZ","level":"info","msg":"%s %s","id":"%016x","bytes":%d}`+"\n",
				r.IntN(60), r.IntN(60), words[r.IntN(len(words))], words[r.IntN(len(words))], r.Uint64(), r.IntN(90000))
		case 2:
			fmt.Fprintf(&b, "I1122 02:%02d:%02d.%06d       1 %s.go:%d] %s %s for pod default/web-%d\n",
				r.IntN(60), r.IntN(60), r.IntN(1000000), words[r.IntN(len(words))], r.IntN(900), words[r.IntN(len(words))], words[r.IntN(len(words))], r.IntN(40))
		default:
			fmt.Fprintf(&b, "2026-11-22 02:%02d:%02d,%03d INFO [%s] %s %s in %d ms (user=%d)\n",
				r.IntN(60), r.IntN(60), r.IntN(1000), words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))], r.IntN(900), r.IntN(10000))
		}
		if n/2_000_000 != b.Len()/2_000_000 {
			b.WriteString("2026-11-22 02:10:00,000 ERROR [db] connection refused: dial tcp 10.0.0.7:5432\n")
		}
	}
	return b.Bytes()
}

// feed runs a Detector over data (already clean) in blocks of whole lines
// of about 256 KiB, as the exec capture reads them.
func feed(data []byte) Result {
	d := New(Options{})
	n := int64(1)
	for len(data) > 0 {
		end := len(data)
		if end > 256<<10 {
			end = bytes.LastIndexByte(data[:256<<10], '\n') + 1
			if end == 0 {
				end = lineEnd(data, 0)
			}
		}
		n += d.Block(n, data[:end])
		data = data[end:]
	}
	return d.Finish()
}

// BenchmarkDetectLogs is the detector alone over 64 MiB of log-like text:
// the target is 1 GB/s or more.
func BenchmarkDetectLogs(b *testing.B) {
	data := logText(64 << 20)
	b.SetBytes(int64(len(data)))
	defer cpuRate(b, len(data))()
	for b.Loop() {
		if r := feed(data); r.Found == 0 {
			b.Fatal("no group found")
		}
	}
}

// cpuRate reports MB per CPU second of the benchmark's goroutine, which it
// locks to its thread: on a shared machine the wall clock measures the
// neighbours too. Call the result when the loop is done.
func cpuRate(b *testing.B, size int) func() {
	runtime.LockOSThread()
	start := threadCPU()
	return func() {
		if cpu := threadCPU() - start; cpu > 0 {
			b.ReportMetric(float64(size)*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
		}
		runtime.UnlockOSThread()
	}
}

// BenchmarkDetectCorpus is the detector over each real output of the corpus.
func BenchmarkDetectCorpus(b *testing.B) {
	cs, err := corpus.Load("../testdata/outputs")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range cs {
		b.Run(c.Name, func(b *testing.B) {
			b.SetBytes(int64(len(c.Output)))
			for b.Loop() {
				feed(c.Output)
			}
		})
	}
}

// BenchmarkScan is the prefilter alone over log-like text.
func BenchmarkScan(b *testing.B) {
	data := logText(16 << 20)
	lines := bytes.SplitAfter(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	defer cpuRate(b, len(data))()
	for b.Loop() {
		var m kw
		for _, l := range lines {
			m |= scan(l)
		}
		if m == 0 {
			b.Fatal("no keyword")
		}
	}
}

// BenchmarkBaselineByteLoop is the least a byte-by-byte scan costs on this
// machine: one table load and an add per byte. The detector is quoted as a
// ratio of it, as neighbours on a shared machine move both.
func BenchmarkBaselineByteLoop(b *testing.B) {
	data := logText(16 << 20)
	b.SetBytes(int64(len(data)))
	defer cpuRate(b, len(data))()
	var s uint64
	for b.Loop() {
		for _, c := range data {
			s += pairBits[c]
		}
	}
	_ = s
}

// BenchmarkBaselineCount is bytes.Count of newlines: the SIMD speed of this
// machine.
func BenchmarkBaselineCount(b *testing.B) {
	data := logText(16 << 20)
	b.SetBytes(int64(len(data)))
	defer cpuRate(b, len(data))()
	for b.Loop() {
		bytes.Count(data, []byte("\n"))
	}
}

// randomText is text like bench/driver's file: lines of 19 to 179 bytes of
// lowercase letters, digits and spaces.
func randomText(size int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 0, size+200)
	for len(b) < size {
		n := 19 + r.IntN(161)
		for range n {
			if r.IntN(7) == 0 {
				b = append(b, ' ')
			} else {
				b = append(b, alphabet[r.IntN(len(alphabet))])
			}
		}
		b = append(b, '\n')
	}
	return b
}

// BenchmarkDetectRandom is the detector over bench/driver's kind of text,
// which exec of cat streams in bench/run.sh.
func BenchmarkDetectRandom(b *testing.B) {
	data := randomText(64 << 20)
	b.SetBytes(int64(len(data)))
	defer cpuRate(b, len(data))()
	for b.Loop() {
		feed(data)
	}
}

// BenchmarkDetectFlood is the detector over nothing but error lines: every
// line a hit, as in an output of 1 GiB of them.
func BenchmarkDetectFlood(b *testing.B) {
	line := []byte("2026-11-22 02:00:00,123 ERROR worker: request 42 failed: connection refused\n")
	data := bytes.Repeat(line, (16<<20)/len(line))
	b.SetBytes(int64(len(data)))
	defer cpuRate(b, len(data))()
	for b.Loop() {
		feed(data)
	}
}

// errorLog is text like bench/driver's genlog -every 6: timestamped lines of
// random words from a few components, one line in six at ERROR with one of
// a few messages, the others at INFO, DEBUG or WARN. Every ERROR and WARN
// line is a hit, most of them of a shape never seen before (random words).
func errorLog(size int) []byte {
	r := rand.New(rand.NewPCG(6, 1))
	words := make([]string, 4096)
	for i := range words {
		w := make([]byte, 2+r.IntN(9))
		for k := range w {
			w[k] = byte('a' + r.IntN(26))
		}
		words[i] = string(w)
	}
	comps := []string{"http", "db", "cache", "auth", "queue", "billing", "search", "mailer"}
	errs := []string{"failed: connection refused", "failed: timeout after 30s", "cannot open file", "permission denied",
		"not found", "panic: nil pointer dereference", "exception in handler", "deadline exceeded"}
	t0 := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)
	b := make([]byte, 0, size+300)
	for n := int64(1); len(b) < size; n++ {
		b = t0.Add(time.Duration(n)*time.Millisecond).AppendFormat(b, "2006-01-02T15:04:05.000Z")
		level := [...]string{"INFO", "INFO", "DEBUG", "WARN"}[r.IntN(4)]
		if n%6 == 0 {
			level = "ERROR"
		}
		b = fmt.Appendf(b, " %-5s [%s] req=%d", level, comps[r.IntN(len(comps))], r.IntN(1e6))
		for k := 3 + r.IntN(10); k > 0; k-- {
			b = append(append(b, ' '), words[r.IntN(len(words))]...)
		}
		if level == "ERROR" {
			b = append(append(b, ' '), errs[r.IntN(len(errs))]...)
		}
		b = append(b, '\n')
	}
	return b
}

// BenchmarkDetectErrorDense is the detector over an error-dense log (see
// errorLog), the case of exec of cat of bench/execcat.sh's generated log:
// the target is 200 MB per CPU second or more.
func BenchmarkDetectErrorDense(b *testing.B) {
	data := errorLog(32 << 20)
	b.SetBytes(int64(len(data)))
	defer cpuRate(b, len(data))()
	for b.Loop() {
		if r := feed(data); len(r.Kinds) == 0 {
			b.Fatal("no kinds found")
		}
	}
}

// kvLog is text like bench/driver's genlog -style kv: a
// time, a level drawn from DEBUG, INFO, WARN and ERROR alike, a component,
// then random words and key=number pairs. Half the lines are hits, every
// one of a shape never seen before.
func kvLog(size int) []byte {
	r := rand.New(rand.NewPCG(6, 1))
	words := make([]string, 4096)
	for i := range words {
		w := make([]byte, 2+r.IntN(9))
		for k := range w {
			w[k] = byte('a' + r.IntN(26))
		}
		words[i] = string(w)
	}
	comps := []string{"http", "db", "cache", "auth", "queue", "billing", "search", "mailer"}
	t0 := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)
	b := make([]byte, 0, size+300)
	for n := int64(1); len(b) < size; n++ {
		b = t0.Add(time.Duration(n)*time.Millisecond).AppendFormat(b, "2006-01-02T15:04:05.000Z")
		b = fmt.Appendf(b, " %s [%s]", [...]string{"DEBUG", "INFO", "WARN", "ERROR"}[r.IntN(4)], comps[r.IntN(len(comps))])
		for k := 3 + r.IntN(10); k > 0; k-- {
			b = append(b, ' ')
			if r.IntN(3) == 0 {
				b = fmt.Appendf(b, "%s=%d", words[r.IntN(len(words))], r.IntN(1<<uint(1+r.IntN(20))))
			} else {
				b = append(b, words[r.IntN(len(words))]...)
			}
		}
		b = append(b, '\n')
	}
	return b
}

// BenchmarkDetectKV is the detector over a kv log (see kvLog): the
// target is exec of cat at 0.8x of the pipe copy or better.
func BenchmarkDetectKV(b *testing.B) {
	data := kvLog(32 << 20)
	b.SetBytes(int64(len(data)))
	defer cpuRate(b, len(data))()
	for b.Loop() {
		if r := feed(data); len(r.Kinds) == 0 {
			b.Fatal("no kinds found")
		}
	}
}

package exec_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"toold/exec"
)

// benchFile writes a text file of TOOLD_BENCH_SIZE bytes (default 64 MiB)
// of log-like lines.
func benchFile(b *testing.B) (string, int64) {
	b.Helper()
	size := int64(64 << 20)
	if s := os.Getenv("TOOLD_BENCH_SIZE"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			b.Fatalf("TOOLD_BENCH_SIZE=%q", s)
		}
		size = n
	}
	name := filepath.Join(b.TempDir(), "out.txt")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	for i := 0; n < size; i++ {
		k, _ := fmt.Fprintf(w, "%08d [info] compiling package number %d of the build, héllo wörld\n", i, i%977)
		n += int64(k)
	}
	w.Flush()
	f.Truncate(size)
	f.Close()
	return name, size
}

// BenchmarkCaptureCat runs `cat FILE` through Runner.Run with spooling on:
// the whole output goes through capture into a spool file.
func BenchmarkCaptureCat(b *testing.B) {
	name, size := benchFile(b)
	r := newRunner(b)
	m, _ := newSpool(b)
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := m.Open(fmt.Sprint("bench", i))
		if err != nil {
			b.Fatal(err)
		}
		res, err := r.Run(context.Background(), exec.Spec{Argv: []string{"cat", name}, Output: defaults, Spool: spoolTo(d)})
		if err != nil {
			b.Fatal(err)
		}
		if res.Stdout.TotalBytes != size || res.Stdout.Spool == nil || res.Stdout.Spool.Bytes != min(size, 100<<20) {
			b.Fatalf("stream %+v", res.Stdout)
		}
		b.StopTimer()
		d.Remove()
		b.StartTimer()
	}
}

// BenchmarkPlainPipeToFile is the floor to compare BenchmarkCaptureCat
// with: os/exec runs `cat FILE` and io.Copy moves its stdout pipe to a file.
func BenchmarkPlainPipeToFile(b *testing.B) {
	name, size := benchFile(b)
	dir := b.TempDir()
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := osexec.Command("cat", name)
		out, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, "copy"))
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(f, out)
		if err != nil || n != size {
			b.Fatalf("copied %d: %v", n, err)
		}
		cmd.Wait()
		f.Close()
		b.StopTimer()
		os.Remove(f.Name())
		b.StartTimer()
	}
}

// BenchmarkExecTrue is the fixed cost of a Run: `true` through bash.
func BenchmarkExecTrue(b *testing.B) {
	r := newRunner(b)
	for i := 0; i < b.N; i++ {
		if _, err := r.Run(context.Background(), exec.Spec{Command: "true", Output: defaults}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOSExecBashTrue is the floor for BenchmarkExecTrue: os/exec runs
// bash -c true with stdout and stderr pipes in a process group of its own.
func BenchmarkOSExecBashTrue(b *testing.B) {
	for i := 0; i < b.N; i++ {
		cmd := osexec.Command("/bin/bash", "-c", "true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, _ := cmd.StdoutPipe()
		errp, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		io.ReadAll(out)
		io.ReadAll(errp)
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

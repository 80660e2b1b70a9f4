package exec_test

import (
	"context"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/internal/testtext"
	"github.com/toold/toold/preview"
	"github.com/toold/toold/protocol"
)

// BenchmarkCaptureCat runs `cat FILE` through Runner.Run with spooling on:
// the whole output goes through capture into a spool file.
func BenchmarkCaptureCat(b *testing.B) {
	name, size := benchFile(b)
	r := newRunner(b)
	m, _ := newSpool(b)
	m.MaxFileBytes = protocol.MaxSpoolFileBytes // as the daemon caps it
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
		if st := res.Stdout; st.TotalBytes != size || st.Spool == nil || st.Spool.Bytes != min(size, protocol.MaxSpoolFileBytes) {
			b.Fatalf("stream of %d bytes, spool %+v", st.TotalBytes, st.Spool)
		}
		b.StopTimer()
		d.Remove()
		b.StartTimer()
	}
}

// benchFile is the file TOOLD_BENCH_FILE names (bench/driver genlog makes
// an error-dense log), else testtext's generated one.
func benchFile(b *testing.B) (string, int64) {
	name := os.Getenv("TOOLD_BENCH_FILE")
	if name == "" {
		return testtext.BenchFile(b)
	}
	fi, err := os.Stat(name)
	if err != nil {
		b.Fatal(err)
	}
	return name, fi.Size()
}

// BenchmarkPlainPipeToFile is the floor to compare BenchmarkCaptureCat
// with: os/exec runs `cat FILE` and io.Copy moves its stdout pipe to a file.
func BenchmarkPlainPipeToFile(b *testing.B) { benchPipeToFile(b, -1) }

// BenchmarkPlainPipeToFileCapped is the floor bench/run.sh compares exec
// of cat with: BenchmarkPlainPipeToFile keeping only the first 100 MiB, as
// the spool does, the rest read and dropped.
func BenchmarkPlainPipeToFileCapped(b *testing.B) {
	benchPipeToFile(b, protocol.MaxSpoolFileBytes)
}

// benchPipeToFile copies cat's stdout to a file, keeping the first keep
// bytes (all when keep < 0) and reading the rest to nowhere.
func benchPipeToFile(b *testing.B, keep int64) {
	name, size := benchFile(b)
	dir := b.TempDir()
	b.SetBytes(size)
	for b.Loop() {
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
		var kept io.Reader = out
		if keep >= 0 {
			kept = io.LimitReader(out, keep)
		}
		n, err := io.Copy(f, kept)
		if err == nil {
			var m int64
			m, err = io.Copy(io.Discard, out)
			n += m
		}
		if err != nil || n != size {
			b.Fatalf("copied %d: %v", n, err)
		}
		cmd.Wait()
		f.Close()
		b.StopTimer() // removing the copy is no part of the copy
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

// BenchmarkScanSpoolCap is the clean-up and the highlight detector alone
// over what exec searches of the bench file (its first 100 MiB, the spool's
// cap), on one core: the bound of exec of cat when the detector is slower
// than the pipe copy (an error-dense log: TOOLD_BENCH_FILE from bench/driver
// genlog).
func BenchmarkScanSpoolCap(b *testing.B) {
	name, size := benchFile(b)
	f, err := os.Open(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	n := min(size, protocol.MaxSpoolFileBytes)
	b.SetBytes(n)
	for b.Loop() {
		if _, err := preview.ScanRange(f, 0, n, defaults); err != nil {
			b.Fatal(err)
		}
	}
}

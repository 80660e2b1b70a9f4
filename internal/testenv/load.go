package testenv

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

// Loaded is d grown with the load average per CPU (/proc/loadavg's first
// figure; 1 where there is none): the bound of a latency that needs a CPU,
// on a machine whose CPUs the other tests share. A bound that is a
// contract's (a prompt noticed within 2 s) holds on a machine with a CPU
// to spare; benchmarks measure the latency itself.
func Loaded(d time.Duration) time.Duration {
	b, _ := os.ReadFile("/proc/loadavg")
	var load float64
	fmt.Sscan(string(b), &load)
	return time.Duration(float64(d) * max(1, load/float64(runtime.NumCPU())))
}

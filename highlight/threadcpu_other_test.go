//go:build !linux

package highlight

import "time"

// threadCPU is 0 (no MB/cpu-s metric): no per-thread rusage here.
func threadCPU() time.Duration { return 0 }

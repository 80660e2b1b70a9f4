package highlight

import (
	"bytes"
	"testing"
)

func BenchmarkCalibSum(b *testing.B) {
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

func BenchmarkCalibCount(b *testing.B) {
	data := logText(16 << 20)
	b.SetBytes(int64(len(data)))
	defer cpuRate(b, len(data))()
	for b.Loop() {
		bytes.Count(data, []byte("\n"))
	}
}

func BenchmarkCalibAnyPair(b *testing.B) {
	data := logText(16 << 20)
	b.SetBytes(int64(len(data)))
	defer cpuRate(b, len(data))()
	for b.Loop() {
		pairsIn(data)
	}
}

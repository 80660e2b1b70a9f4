package seen

import (
	"bytes"
	"hash/maphash"
)

// seed makes the line hashes: one seed for the daemon's life, so
// hashes of one run compare.
var seed = maphash.MakeSeed()

// HashLines hashes each line of raw (whole lines, endings included).
func HashLines(raw []byte) []uint64 {
	hs := make([]uint64, 0, bytes.Count(raw, []byte{'\n'})+1)
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\n')
		line := raw
		if i >= 0 {
			line = raw[:i+1]
		}
		hs = append(hs, maphash.Bytes(seed, line))
		raw = raw[len(line):]
	}
	return hs
}

package highlight

// shapeSet is a filter of the shapes a map keyed by shape holds (the
// rules' cache, the template table's shortcut): a bit per 16-bit slice of
// a shape hash, 8 KiB, which stays in the L1 cache where the maps of 8,192
// entries do not. A shape whose bit is clear is not in the map: on an
// error-dense log of random words nearly every shape is new, and most of
// their lookups, each a cache miss, end here. A set bit says nothing: the
// map is looked up as before, so what is found does not change.
type shapeSet [1 << 10]uint64

func (s *shapeSet) add(h uint64) {
	i := h >> 48
	s[i>>6] |= 1 << (i & 63)
}

// may reports whether h may be in the map (false: it is not).
func (s *shapeSet) may(h uint64) bool {
	i := h >> 48
	return s[i>>6]&(1<<(i&63)) != 0
}

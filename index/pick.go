package index

import (
	"math/bits"
	"os"
	"path/filepath"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/toold/toold/internal/beneath"
	"github.com/toold/toold/search"
)

// listMaps tie a listing of the tree to its index, made once per load
// so that a grep's pick is array lookups and bit sets.
type listMaps struct {
	// inv maps the index's files to the listing's (-1: not listed); fwd
	// the listing's to the index's (-1: not in it).
	inv, fwd []int32
	// always is a bit set of the listing's files the index does not
	// answer for (not in it, skipped), aliases excepted.
	always []uint64
	// aliases are symlinked files whose target, inside the tree, is a
	// file of the index: a candidate when their target is. Any change to
	// a name on the way (the link, a directory) is a name event that
	// makes the tree structural (a walk), and a write to the target marks
	// the target: without them each of the kernel's 45 links was opened
	// and read, through the root, by every grep.
	aliases []alias
	listed  map[string]int32
	// dirty is a bit set of the listing's files in Tree.dirty; text of
	// those the index judged text (flagText).
	dirty, text []uint64
}

// markDirty notes that the file rel (a path of Tree.dirty) changed.
func (lm *listMaps) markDirty(rel string) {
	if i, ok := lm.listed[rel]; ok {
		setBit(lm.dirty, i)
	}
}

// alias is a symlinked file of the listing (link) and its target's file
// in the listing (target).
type alias struct{ link, target int32 }

// listingMaps makes the maps of idx and the listing l of the tree root.
func listingMaps(idx *mapped, l *search.Listing, root string) *listMaps {
	lm := &listMaps{inv: make([]int32, len(idx.files)), fwd: make([]int32, len(l.Files)),
		always: make([]uint64, (len(l.Files)+63)/64), dirty: make([]uint64, (len(l.Files)+63)/64),
		text:   make([]uint64, (len(l.Files)+63)/64),
		listed: make(map[string]int32, len(l.Files))}
	for i := range lm.inv {
		lm.inv[i] = -1
	}
	var links []int32
	for i, f := range l.Files {
		lm.listed[f.Rel] = int32(i)
		lm.fwd[i] = -1
		id, ok := idx.byPath[f.Rel]
		switch {
		case f.Symlink:
			links = append(links, int32(i))
		case !ok || idx.files[id].flags&flagSkipped != 0:
			setBit(lm.always, int32(i))
		default:
			lm.inv[id], lm.fwd[i] = int32(i), int32(id)
			if idx.files[id].flags&flagText != 0 {
				setBit(lm.text, int32(i))
			}
		}
	}
	var dirs map[string]bool
	for _, i := range links {
		target, isDir := linkTarget(root, l.Files[i].Rel)
		if t, ok := lm.listed[target]; ok && !isDir && lm.fwd[t] >= 0 {
			lm.aliases = append(lm.aliases, alias{link: i, target: t})
			continue
		}
		if isDir && dirs == nil {
			dirs = make(map[string]bool, len(l.Dirs))
			for _, d := range l.Dirs {
				dirs[d] = true
			}
		}
		if !isDir || !dirs[target] {
			setBit(lm.always, i) // a link to a walked directory is never searched
		}
	}
	return lm
}

// linkTarget is the path, relative to root, of what the symlink rel
// leads to in one hop (its target names no other symlink) and whether
// that is a directory; "" when it leads out of the tree, nowhere, or
// through another link (which may lie where no watch sees it change).
func linkTarget(root, rel string) (string, bool) {
	link := filepath.Join(root, rel)
	to, err := os.Readlink(link)
	if err != nil || filepath.Clean(to) != to {
		// Not clean ("s/../f.c"): a name on the way that is not on the
		// target's path (s) could change, later, where it leads, and no
		// event beneath the target would say so. A leading "../" climbs
		// the link's own directories, which the tree watches.
		return "", false
	}
	if !filepath.IsAbs(to) {
		to = filepath.Join(filepath.Dir(link), to)
	}
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", false
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	r, ok := beneath.Rel(real, realRoot)
	if !ok {
		return "", false
	}
	if lexical, err := filepath.Rel(root, to); err != nil || lexical != r {
		return "", false
	}
	fi, err := os.Lstat(real)
	if err != nil || !fi.Mode().IsRegular() && !fi.IsDir() {
		return "", false
	}
	return filepath.ToSlash(r), fi.IsDir()
}

func setBit(set []uint64, i int32) { set[i>>6] |= 1 << (i & 63) }

func hasBit(set []uint64, i int32) bool { return set[i>>6]&(1<<(i&63)) != 0 }

// pick lists the listing's files a grep searches: those with a document
// in bm, those the index does not answer for, and those changed since;
// of large files, the blocks that may match; and which files are text
// as they are (judged so and unchanged since). Under t.mu.
func (t *Tree) pick(bm *roaring.Bitmap) ([]int32, []search.FileParts, []uint64) {
	idx, lm := t.idx, t.lm
	set := slices.Clone(lm.always)
	var blocks []uint64 // of files in blocks: listing index<<32 | block
	it := bm.ManyIterator()
	buf := make([]uint32, 512)
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		for _, doc := range buf[:n] {
			f, k, ok := idx.fileOf(doc)
			if !ok || int(f) >= len(lm.inv) || lm.inv[f] < 0 {
				continue
			}
			li := lm.inv[f]
			setBit(set, li)
			if len(idx.files[f].blocks) > 0 {
				blocks = append(blocks, uint64(li)<<32|uint64(k))
			}
		}
	}
	for i, w := range lm.dirty {
		set[i] |= w
	}
	for _, a := range lm.aliases {
		if hasBit(set, a.target) {
			setBit(set, a.link)
		}
	}
	n := 0
	for _, w := range set {
		n += bits.OnesCount64(w)
	}
	pick := make([]int32, 0, n)
	for i, w := range set {
		for ; w != 0; w &= w - 1 {
			pick = append(pick, int32(i*64+bits.TrailingZeros64(w)))
		}
	}
	text := make([]uint64, len(lm.text))
	for i, w := range lm.text {
		text[i] = w &^ lm.dirty[i]
	}
	return pick, t.parts(blocks), text
}

// parts groups the candidate blocks (listing index<<32 | block) by file:
// the parts of each file that may match, unless all of it may or it
// changed since (searched whole), by file. Under t.mu.
func (t *Tree) parts(blocks []uint64) []search.FileParts {
	if len(blocks) == 0 {
		return nil
	}
	slices.Sort(blocks)
	files := 0
	for i := range blocks {
		if i == 0 || blocks[i]>>32 != blocks[i-1]>>32 {
			files++
		}
	}
	parts := make([]search.FileParts, 0, files)
	ranges := make([]search.Range, 0, len(blocks)) // the ranges of all
	var ks []int
	for i := 0; i < len(blocks); {
		li := int32(blocks[i] >> 32)
		ks = ks[:0]
		for ; i < len(blocks) && int32(blocks[i]>>32) == li; i++ {
			ks = append(ks, int(uint32(blocks[i])))
		}
		meta := &t.idx.files[t.lm.fwd[li]]
		if len(ks) == len(meta.blocks)+1 || hasBit(t.lm.dirty, li) {
			continue // searched whole
		}
		p := meta.parts(ks, ranges[len(ranges):len(ranges)])
		ranges = ranges[:len(ranges)+len(p.Ranges)]
		parts = append(parts, search.FileParts{File: li, Parts: p})
	}
	return parts
}

// parts are the ranges of the blocks ks (ascending numbers, 0 the first)
// of the file, adjacent ones joined while they stay under maxBlock (a
// longer piece is searched whole: search's maxPart). The ranges are
// appended to ranges, which has room for them.
func (f *fileMeta) parts(ks []int, ranges []search.Range) search.Parts {
	p := search.Parts{Size: f.size, Mtime: f.mtime, Ranges: ranges}
	for _, k := range ks {
		off, line := int64(0), 1
		if k > 0 {
			off, line = int64(f.blocks[k-1].off), int(f.blocks[k-1].line)
		}
		end := f.size
		if k < len(f.blocks) {
			end = int64(f.blocks[k].off)
		}
		if n := len(p.Ranges); n > 0 && p.Ranges[n-1].End == off && end-p.Ranges[n-1].Off <= int64(maxBlock) {
			p.Ranges[n-1].End = end
			continue
		}
		p.Ranges = append(p.Ranges, search.Range{Off: off, End: end, Line: line})
	}
	return p
}

package search

import (
	"context"
	"io/fs"
)

// Files lists the files a grep of the directory dir with opt would search
// (regular files and symlinks, what ignore files exclude and VCS
// directories left out, opt.Glob applied), in walk order, as '/'-separated
// paths relative to dir: what an index of the tree holds.
func Files(ctx context.Context, dir string, opt GrepOptions) ([]string, error) {
	g := newGlob(opt.Glob)
	var out []string
	wo := walkOptions{ignoreFrom: opt.IgnoreFrom, noIgnore: opt.NoIgnore, allow: opt.Allow}
	_, err := walk(ctx, dir, wo, func(dirRel string, e entry, _ *dirHandle, _ int) error {
		if !e.typ.IsRegular() && e.typ&fs.ModeSymlink == 0 {
			return nil
		}
		rel := joinRel(dirRel, e.name)
		if g.match(rel, e.name) {
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}

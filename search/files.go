package search

import (
	"context"
	"io/fs"
)

// Listing is what a walk of a tree found: what an index of it holds, and
// what lets a grep of the unchanged tree skip the walk (GrepListing).
type Listing struct {
	// Files are the files a grep would search (regular files and
	// symlinks), in walk order, '/'-separated paths relative to the tree.
	Files []ListedFile
	// Dirs are the directories walked, the tree's own ("") first.
	Dirs []string
	// Ignored counts the entries ignore files excluded.
	Ignored int
}

// ListedFile is one file of a Listing.
type ListedFile struct {
	Rel string
	// Ignored is how many entries the walk had ignored when it met the file.
	Ignored int
	// Symlink: a symbolic link (opened through the tree's root).
	Symlink bool
}

// Files lists the tree dir as a grep of it with opt would walk it (ignore
// files, VCS directories; opt.Glob is not applied).
func Files(ctx context.Context, dir string, opt GrepOptions) (*Listing, error) {
	l := &Listing{Dirs: []string{""}}
	wo := walkOptions{ignoreFrom: opt.IgnoreFrom, noIgnore: opt.NoIgnore, allow: opt.Allow}
	var err error
	l.Ignored, err = walk(ctx, dir, wo, func(dirRel string, e entry, _ *dirHandle, ignored int) error {
		switch {
		case e.typ.IsDir():
			l.Dirs = append(l.Dirs, joinRel(dirRel, e.name))
		case e.typ.IsRegular(), e.typ&fs.ModeSymlink != 0:
			l.Files = append(l.Files, ListedFile{Rel: joinRel(dirRel, e.name), Ignored: ignored, Symlink: e.typ&fs.ModeSymlink != 0})
		}
		return nil
	})
	return l, err
}

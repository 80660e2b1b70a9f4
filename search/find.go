package search

import (
	"context"
	"io/fs"
	"strings"

	"golang.org/x/sys/unix"
)

// EntryType filters find's entries. The zero value, TypeAny, keeps all.
type EntryType int

const (
	// TypeAny keeps every entry, symlinks and special files included.
	TypeAny EntryType = iota
	// TypeFile keeps regular files.
	TypeFile
	// TypeDir keeps directories.
	TypeDir
)

// FindOptions filter find's entries. The zero value lists everything.
type FindOptions struct {
	// Pattern is a glob on the path relative to the searched directory, or
	// on the name alone when it holds no '/' (see GrepOptions.Glob).
	Pattern string
	Type    EntryType
	// Limit is how many entries are returned; 0 is no limit.
	Limit int
	// IgnoreFrom, NoIgnore and Allow: as GrepOptions'.
	IgnoreFrom string
	NoIgnore   bool
	Allow      Allow
}

// FindResult lists the entries of a tree.
type FindResult struct {
	// Entries are paths relative to the searched directory, in walk order
	// (depth first, sorted by name); a directory's ends with '/'.
	Entries []string
	// Total counts every entry that passed the filters, listed or not.
	Total int
	// LimitReached is set when Total is more than Entries.
	LimitReached bool
	// Ignored counts entries excluded by ignore files.
	Ignored int
}

// Find lists the entries beneath dir that pass opt's filters.
func Find(ctx context.Context, dir string, opt FindOptions) (*FindResult, error) {
	if err := CheckGlob(opt.Pattern); err != nil {
		return nil, err
	}
	g := newGlob(opt.Pattern)
	res := &FindResult{}
	var err error
	wo := walkOptions{ignoreFrom: opt.IgnoreFrom, noIgnore: opt.NoIgnore, allow: opt.Allow}
	res.Ignored, err = walk(ctx, dir, wo, func(dirRel string, e entry, _ *dirHandle, _ int) error {
		if opt.Type == TypeFile && !e.typ.IsRegular() || opt.Type == TypeDir && !e.typ.IsDir() {
			return nil
		}
		var rel string
		if !g.nameOnly {
			rel = joinRel(dirRel, e.name)
		}
		if !g.match(rel, e.name) {
			return nil
		}
		res.Total++
		if opt.Limit <= 0 || len(res.Entries) < opt.Limit {
			if rel == "" {
				rel = joinRel(dirRel, e.name)
			}
			if e.typ.IsDir() {
				rel += "/"
			}
			res.Entries = append(res.Entries, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.LimitReached = len(res.Entries) < res.Total
	return res, nil
}

// Kind is what a listed entry is.
type Kind int

const (
	// KindFile is a regular file.
	KindFile Kind = iota
	// KindDir is a directory.
	KindDir
	// KindSymlink is a symbolic link, not followed.
	KindSymlink
	// KindOther is a FIFO, socket or device.
	KindOther
)

// ListOptions shape a listing. The zero value lists every entry but
// dotfiles.
type ListOptions struct {
	// Limit is how many entries are returned; 0 is no limit.
	Limit int
	// All lists the entries whose names start with '.'.
	All bool
	// IgnoreFrom, NoIgnore and Allow: as GrepOptions'.
	IgnoreFrom string
	NoIgnore   bool
	Allow      Allow
}

// ListEntry is one entry of a directory.
type ListEntry struct {
	Name string
	Kind Kind
	// Target is where a symlink points, as written in it.
	Target string
}

// ListResult is a directory's listing.
type ListResult struct {
	// Entries are sorted by name.
	Entries []ListEntry
	// Total counts the entries that passed the filters, listed or not.
	Total        int
	LimitReached bool
	// Ignored counts entries excluded by the directory's ignore files.
	Ignored int
}

// List lists dir: sorted, without VCS directories or what the
// directory's own ignore files exclude.
func List(ctx context.Context, dir string, opt ListOptions) (*ListResult, error) {
	fd, err := openDir(dir)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if err := checkOpen(fd, opt.Allow); err != nil {
		return nil, err
	}
	ents, err := readDir(fd)
	if err != nil {
		return nil, err
	}
	var rules *ignoreRules
	var anc prio
	var comps []string
	if !opt.NoIgnore {
		rules, anc, comps = parentRules(dir, opt.IgnoreFrom)
		rules = rules.with(comps, readDirIgnoreAt(fd, ents))
	}
	res := &ListResult{}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch {
		case !opt.All && strings.HasPrefix(e.name, "."),
			e.typ.IsDir() && vcsDirs[e.name]:
			continue
		case ignoredEntry(rules, anc, comps, e):
			res.Ignored++
			continue
		}
		res.Total++
		if opt.Limit > 0 && len(res.Entries) >= opt.Limit {
			continue
		}
		le := ListEntry{Name: e.name, Kind: kindOf(e.typ)}
		if le.Kind == KindSymlink {
			le.Target = readlinkAt(fd, e.name)
		}
		res.Entries = append(res.Entries, le)
	}
	res.LimitReached = len(res.Entries) < res.Total
	return res, nil
}

func ignoredEntry(rules *ignoreRules, anc prio, dir []string, e entry) bool {
	skip, _ := rules.excluded(anc, &entryPath{dir: dir, name: e.name, isDir: e.typ.IsDir()})
	return skip
}

func kindOf(t fs.FileMode) Kind {
	switch {
	case t.IsRegular():
		return KindFile
	case t.IsDir():
		return KindDir
	case t&fs.ModeSymlink != 0:
		return KindSymlink
	}
	return KindOther
}

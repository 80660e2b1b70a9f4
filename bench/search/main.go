// Command search runs the search engine once, as rg, grep and find run, so
// that bench/search.sh can time it beside them; it prints what it found.
//
//	search grep [-F] [-i] [-glob G] [-limit N] PATTERN DIR
//	search find [-name G] [-type f|d] DIR
//	search ls [-a] DIR
//	search listed [-F] [-every N] PATTERN DIR
//	                     (the index's path: the tree listed, then every Nth
//	                     file grepped by its path, GrepListing, timed alone)
//	search gen DIR N     (a tree of N small files, 100 to a directory)
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/toold/toold/search"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: search grep|find|ls ...")
		os.Exit(2)
	}
	if path := os.Getenv("TOOLD_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	defer out.Flush()
	var err error
	switch os.Args[1] {
	case "grep":
		err = grep(out, os.Args[2:])
	case "find":
		err = find(out, os.Args[2:])
	case "ls":
		err = ls(out, os.Args[2:])
	case "listed":
		err = listed(out, os.Args[2:])
	case "gen":
		err = gen(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		out.Flush()
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "search:", err)
		os.Exit(2)
	}
}

func grep(out *bufio.Writer, args []string) error {
	fs := flag.NewFlagSet("grep", flag.ExitOnError)
	literal := fs.Bool("F", false, "literal pattern")
	fold := fs.Bool("i", false, "ignore case")
	glob := fs.String("glob", "", "glob filter")
	limit := fs.Int("limit", 0, "match limit (0: none)")
	ctxLines := fs.Int("C", 0, "context lines")
	fs.Parse(args)
	if fs.NArg() != 2 {
		return fmt.Errorf("grep wants PATTERN DIR")
	}
	m, err := search.Compile(search.Query{Pattern: fs.Arg(0), Literal: *literal, IgnoreCase: *fold})
	if err != nil {
		return err
	}
	res, err := search.Grep(context.Background(), m, fs.Arg(1), search.GrepOptions{
		Glob: *glob, Limit: *limit, Context: *ctxLines,
	})
	if err != nil {
		return err
	}
	for _, f := range res.Files {
		for _, mt := range f.Matches {
			fmt.Fprintf(out, "%s:%d:%s\n", f.Path, mt.Line, mt.Text)
		}
	}
	fmt.Fprintf(os.Stderr, "matches %d files %d limit %q skipped %+v\n", res.TotalMatches, len(res.Files), res.LimitReached, res.Skipped)
	return nil
}

// listed greps the files of the tree's listing by their paths, as a grep
// through the index does (search.GrepListing: each file opened beneath the
// tree, openat2 on Linux, a component at a time elsewhere), and prints
// the grep's time alone ("grep_ms") to stderr.
func listed(out *bufio.Writer, args []string) error {
	fs := flag.NewFlagSet("listed", flag.ExitOnError)
	literal := fs.Bool("F", false, "literal pattern")
	every := fs.Int("every", 1, "grep every Nth file of the listing")
	fs.Parse(args)
	if fs.NArg() != 2 || *every < 1 {
		return fmt.Errorf("listed wants [-every N] PATTERN DIR")
	}
	m, err := search.Compile(search.Query{Pattern: fs.Arg(0), Literal: *literal})
	if err != nil {
		return err
	}
	l, err := search.Files(context.Background(), fs.Arg(1), search.GrepOptions{})
	if err != nil {
		return err
	}
	var pick []int32
	for i := 0; i < len(l.Files); i += *every {
		pick = append(pick, int32(i))
	}
	start := time.Now()
	res, err := search.GrepListing(context.Background(), m, fs.Arg(1), l, pick, nil, search.GrepOptions{})
	if err != nil {
		return err
	}
	ms := time.Since(start).Seconds() * 1000
	for _, f := range res.Files {
		for _, mt := range f.Matches {
			fmt.Fprintf(out, "%s:%d:%s\n", f.Path, mt.Line, mt.Text)
		}
	}
	fmt.Fprintf(os.Stderr, "grep_ms %.1f files %d matches %d\n", ms, len(pick), res.TotalMatches)
	return nil
}

func find(out *bufio.Writer, args []string) error {
	fs := flag.NewFlagSet("find", flag.ExitOnError)
	name := fs.String("name", "", "glob")
	typ := fs.String("type", "", "f or d")
	fs.Parse(args)
	if fs.NArg() != 1 {
		return fmt.Errorf("find wants DIR")
	}
	opt := search.FindOptions{Pattern: *name}
	switch *typ {
	case "f":
		opt.Type = search.TypeFile
	case "d":
		opt.Type = search.TypeDir
	}
	res, err := search.Find(context.Background(), fs.Arg(0), opt)
	if err != nil {
		return err
	}
	for _, e := range res.Entries {
		out.WriteString(e)
		out.WriteByte('\n')
	}
	fmt.Fprintf(os.Stderr, "entries %d ignored %d\n", res.Total, res.Ignored)
	return nil
}

func ls(out *bufio.Writer, args []string) error {
	fs := flag.NewFlagSet("ls", flag.ExitOnError)
	all := fs.Bool("a", false, "dotfiles")
	fs.Parse(args)
	res, err := search.List(context.Background(), fs.Arg(0), search.ListOptions{All: *all})
	if err != nil {
		return err
	}
	for _, e := range res.Entries {
		fmt.Fprintln(out, e.Name, e.Kind, e.Target)
	}
	return nil
}

// gen writes n small files of a few lines, 100 to a directory and 100
// directories to a parent, one file in 50 holding "needle_42".
func gen(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("gen wants DIR N")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return err
	}
	for i := range n {
		dir := filepath.Join(args[0], fmt.Sprintf("d%03d", i/10000), fmt.Sprintf("e%03d", i/100%100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
		}
		body := fmt.Sprintf("package p%d\n\n// file %d of the generated tree\nfunc F%d() int { return %d }\n", i, i, i, i*7)
		if i%50 == 0 {
			body += "var s = \"needle_42\"\n"
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.go", i)), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

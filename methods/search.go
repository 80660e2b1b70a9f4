package methods

import (
	"cmp"
	"context"
	"os"
	"path/filepath"

	"github.com/toold/toold/index"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/search"
	"github.com/toold/toold/spool"
)

// Grep answers grep: the lines of a file, a tree or a spool that match.
func (svc *Service) Grep(ctx context.Context, s *Session, params []byte) (any, error) {
	var p protocol.GrepParams
	if err := rpc.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	opt, err := grepOptions(&p)
	if err != nil {
		return nil, err
	}
	if p.Pattern == "" {
		return nil, rpc.InvalidParams("pattern", "required: an RE2 regular expression, or a string with literal true")
	}
	m, err := search.Compile(search.Query{Pattern: p.Pattern, Literal: p.Literal, IgnoreCase: p.IgnoreCase})
	if err != nil {
		return nil, rpc.InvalidParams("pattern", "not a valid RE2 regular expression: %v", err)
	}
	var res *search.GrepResult
	if p.Spool != "" {
		if p.Path != "" {
			return nil, rpc.InvalidParams("spool", "give path or spool, not both")
		}
		res, err = grepSpool(ctx, s, m, p.Spool, opt)
	} else {
		var dir string
		if dir, err = s.searchPath(p.Path); err != nil {
			return nil, err
		}
		opt.IgnoreFrom, opt.Allow = s.ignoreFrom(dir), s.allowOpen(cmp.Or(p.Path, s.Cwd))
		plan := svc.plan(ctx, dir, &p, opt.IgnoreFrom)
		if svc.Search != nil {
			defer svc.Search.Scanned(dir) // a first grep's build waits for it
		}
		if plan.Listing != nil {
			opt.Text = plan.Text
			res, err = search.GrepListing(ctx, m, dir, plan.Listing, plan.Pick, plan.Parts, opt)
		} else {
			opt.Candidate = plan.Candidate
			res, err = search.Grep(ctx, m, dir, opt)
		}
		if err != nil {
			return nil, fileError(dir, err)
		}
	}
	if err != nil {
		return nil, err
	}
	budget, err := renderBudget(p.Render)
	if err != nil {
		return nil, err
	}
	out := toGrepResult(res)
	fitGrep(out, notice.GrepFacts{Limit: opt.Limit, MaxBytes: opt.MaxBytes, MaxLineChars: opt.MaxLineChars}, budget)
	return out, nil
}

// plan asks the search index how to grep the directory dir for p's
// pattern: through the index's listing of an unchanged tree, walking past
// the files it rules out, or a scan (the zero Plan) when the index is off,
// dir is a file, or the tree's index is not ready or cannot answer. The
// first grep of a tree starts its index; a grep while it builds reports
// the build's progress.
func (svc *Service) plan(ctx context.Context, dir string, p *protocol.GrepParams, ignoreFrom string) index.Plan {
	if svc.Search == nil {
		return index.Plan{}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return index.Plan{}
	}
	plan := svc.Search.Plan(dir, index.QueryFor(p.Pattern, p.Literal, p.IgnoreCase), ignoreFrom, p.NoIgnore)
	if prog := rpc.ProgressFrom(ctx); prog != nil && plan.Listing == nil && plan.Candidate == nil {
		if done, total, ok := svc.Search.Progress(dir); ok {
			prog.Report(protocol.IndexProgress{Kind: protocol.ProgressIndex, BytesDone: done, BytesTotal: total})
		}
	}
	return plan
}

// grepOptions checks grep's limits; the defaults and caps are protocol's.
func grepOptions(p *protocol.GrepParams) (search.GrepOptions, error) {
	opt := search.GrepOptions{Glob: p.Glob, MaxFileSize: protocol.MaxGrepFileSize, NoIgnore: p.NoIgnore}
	var err error
	if opt.Context, err = intCount("context", p.Context, 0, 0, protocol.MaxGrepContext); err != nil {
		return opt, err
	}
	if opt.Limit, err = intCount("limit", p.Limit, protocol.DefaultGrepLimit, 1, protocol.MaxGrepLimit); err != nil {
		return opt, err
	}
	if opt.MaxLineChars, err = intCount("maxLineChars", p.MaxLineChars, protocol.DefaultGrepMaxLineChars, 0, protocol.MaxLineChars); err != nil {
		return opt, err
	}
	if opt.MaxBytes, err = intCount("maxBytes", p.MaxBytes, protocol.DefaultGrepMaxBytes, 1, protocol.MaxGrepBytes); err != nil {
		return opt, err
	}
	if err := search.CheckGlob(p.Glob); err != nil {
		return opt, rpc.InvalidParams("glob", "%v", err)
	}
	return opt, nil
}

// grepSpool searches one of the session's spools, shown cleaned as page
// shows it; its line numbers are page's.
func grepSpool(ctx context.Context, s *Session, m *search.Matcher, id string, opt search.GrepOptions) (*search.GrepResult, error) {
	if s.Spool == nil {
		return nil, spoolError(id, spool.ErrNoSpool)
	}
	f, err := s.Spool.Open(id)
	if err != nil {
		return nil, spoolError(id, err)
	}
	path := f.Name()
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileError(path, err)
	}
	opt.Clean = true
	return search.GrepReader(ctx, m, f, fi.Size(), path, opt)
}

// Find answers find: the entries of a tree whose paths match a glob.
func (svc *Service) Find(ctx context.Context, s *Session, params []byte) (any, error) {
	var p protocol.FindParams
	if err := rpc.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	limit, err := intCount("limit", p.Limit, protocol.DefaultFindLimit, 1, protocol.MaxFindLimit)
	if err != nil {
		return nil, err
	}
	opt := search.FindOptions{Pattern: p.Pattern, Limit: limit, NoIgnore: p.NoIgnore}
	switch p.Type {
	case "":
	case protocol.FindTypeFile:
		opt.Type = search.TypeFile
	case protocol.FindTypeDir:
		opt.Type = search.TypeDir
	default:
		return nil, rpc.InvalidParams("type", "must be %q or %q, got %q", protocol.FindTypeFile, protocol.FindTypeDir, p.Type)
	}
	if err := search.CheckGlob(p.Pattern); err != nil {
		return nil, rpc.InvalidParams("pattern", "%v", err)
	}
	dir, err := s.searchPath(p.Path)
	if err != nil {
		return nil, err
	}
	opt.IgnoreFrom, opt.Allow = s.ignoreFrom(dir), s.allowOpen(cmp.Or(p.Path, s.Cwd))
	res, err := search.Find(ctx, dir, opt)
	if err != nil {
		return nil, fileError(dir, err)
	}
	out := &protocol.EntriesResult{Entries: nonNil(res.Entries), Total: res.Total, LimitReached: res.LimitReached}
	budget, err := renderBudget(p.Render)
	if err != nil {
		return nil, err
	}
	fitEntries(protocol.MethodFind, out, limit, res.Ignored, budget)
	return out, nil
}

// Ls answers ls: a directory's entries.
func (svc *Service) Ls(ctx context.Context, s *Session, params []byte) (any, error) {
	var p protocol.LsParams
	if err := rpc.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	limit, err := intCount("limit", p.Limit, protocol.DefaultLsLimit, 1, protocol.MaxLsLimit)
	if err != nil {
		return nil, err
	}
	dir, err := s.searchPath(p.Path)
	if err != nil {
		return nil, err
	}
	res, err := search.List(ctx, dir, search.ListOptions{Limit: limit, All: p.All, NoIgnore: p.NoIgnore,
		IgnoreFrom: s.ignoreFrom(dir), Allow: s.allowOpen(cmp.Or(p.Path, s.Cwd))})
	if err != nil {
		return nil, fileError(dir, err)
	}
	out := &protocol.EntriesResult{Entries: make([]string, 0, len(res.Entries)), Total: res.Total, LimitReached: res.LimitReached}
	for _, e := range res.Entries {
		switch e.Kind {
		case search.KindDir:
			out.Entries = append(out.Entries, e.Name+"/")
		case search.KindSymlink:
			out.Entries = append(out.Entries, e.Name+" -> "+e.Target)
		default:
			out.Entries = append(out.Entries, e.Name)
		}
	}
	budget, err := renderBudget(p.Render)
	if err != nil {
		return nil, err
	}
	fitEntries(protocol.MethodLs, out, limit, res.Ignored, budget)
	return out, nil
}

// searchPath resolves a search's path param: the session's cwd when absent,
// checked against the roots as read checks its path.
func (s *Session) searchPath(path string) (string, error) {
	if path == "" {
		path = s.Cwd
	}
	return s.resolve("path", path)
}

// allowOpen checks a search's directory or file where it was opened, as
// resolve checked its path: a symlink swapped in meanwhile cannot lead it
// out of the roots. path is the param, for the error.
func (s *Session) allowOpen(path string) search.Allow {
	if len(s.Roots) == 0 {
		return nil
	}
	return func(real string) error {
		if _, ok := s.rootOf(real); !ok {
			return rpc.Errorf(protocol.CodeAccessDenied, map[string]string{"path": path},
				"access denied: %s is outside the session's roots", path)
		}
		return nil
	}
}

// ignoreFrom is where the ignore files that apply to a search of dir
// start: the root of the repository that holds dir (the nearest directory
// with a .git), when it is within the session's roots; else "" (only the
// tree's own ignore files apply).
func (s *Session) ignoreFrom(dir string) string {
	for d := dir; ; {
		if _, ok := s.rootOf(d); !ok {
			return ""
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// toGrepResult maps the engine's result to the wire's, with [] for no lines.
func toGrepResult(r *search.GrepResult) *protocol.GrepResult {
	out := &protocol.GrepResult{
		Files:        make([]protocol.GrepFile, 0, len(r.Files)),
		TotalMatches: r.TotalMatches,
		ClippedLines: r.ClippedLines,
		Skipped:      protocol.GrepSkipped{Binary: r.Skipped.Binary, TooLarge: r.Skipped.TooLarge, Ignored: r.Skipped.Ignored},
	}
	switch r.LimitReached {
	case search.LimitMatches:
		out.LimitReached = ptr(protocol.GrepByMatches)
	case search.LimitBytes:
		out.LimitReached = ptr(protocol.GrepByBytes)
	}
	for _, f := range r.Files {
		gf := protocol.GrepFile{Path: f.Path, Count: f.Count, Matches: make([]protocol.GrepMatch, len(f.Matches))}
		for i, m := range f.Matches {
			gf.Matches[i] = protocol.GrepMatch{Line: m.Line, Text: m.Text, Before: nonNil(m.Before), After: nonNil(m.After)}
		}
		out.Files = append(out.Files, gf)
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

package methods

import (
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/toold/toold/internal/beneath"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/sandbox"
)

// SandboxPolicy is the session's sandbox with its TMPDIR, which it may
// write to; nil when the session is not sandboxed.
func (s *Session) SandboxPolicy() *sandbox.Policy {
	if s.Sandbox == nil {
		return nil
	}
	q := *s.Sandbox
	q.TmpDir = s.TmpDir
	// The daemon made the TMPDIR: it is resolved now, where it is (its
	// rule is on the directory, whichever path names it).
	tmp := s.TmpDir
	if real, id, err := sandbox.Resolve(s.TmpDir); err == nil {
		tmp = real
		q.IDs = maps.Clone(s.Sandbox.IDs)
		if q.IDs == nil {
			q.IDs = map[string]sandbox.FileID{}
		}
		q.IDs[tmp] = id
	}
	q.Writable = append(slices.Clip(s.Sandbox.Writable), tmp)
	if q.Readable != nil {
		q.Readable = append(slices.Clip(s.Sandbox.Readable), tmp)
	}
	return &q
}

var (
	// deniedLine: EACCES, EPERM and EROFS as libc, Python, Go, Rust and
	// Node word them ("Permission denied", "open /x: permission denied",
	// "EACCES: permission denied, open '/x'"), in any case.
	deniedLine = regexp.MustCompile(`(?i:permission denied|operation not permitted|read-only file system)|PermissionError|\b(?:EACCES|EPERM|EROFS)\b`)
	// notPermitted: EPERM, which a signal or an abstract socket's connect
	// outside the sandbox gets.
	notPermitted = regexp.MustCompile(`(?i:operation not permitted)|\bEPERM\b`)
	// networkLine: ENETUNREACH, ECONNREFUSED (the host's loopback is not
	// the command's) and a failed name lookup, as libc, curl, Go ("dial
	// tcp ...: connect: network is unreachable", "lookup example.com: no
	// such host"), Rust and Node word them, in any case. Checked only with
	// the network off.
	networkLine = regexp.MustCompile(`(?i:network is unreachable|connection refused|temporary failure in name resolution|could not resolve host|name or service not known|no address associated with hostname|getaddrinfo|no such host|failed to lookup address|server misbehaving)|\b(?:ENETUNREACH|ECONNREFUSED|EAI_AGAIN|ENOTFOUND)\b`)
	// pathToken: an absolute or explicitly relative path in a message.
	pathToken = regexp.MustCompile(`(?:^|[\s'"‘“(\x60=])((?:/|\./|\.\./)[^\s'"’”)\x60:,]*)`)
)

// sandboxDenial finds in res's output what the sandbox p refused: a write
// to a path outside its writable set, a connection with the network off, a
// signal beyond the command's processes. nil when the output shows none.
func sandboxDenial(p *sandbox.Policy, cwd string, streams ...*protocol.Stream) *notice.SandboxDenial {
	if p == nil {
		return nil
	}
	d := &notice.SandboxDenial{Mode: p.Mode, Writable: p.Writable, TmpDir: p.TmpDir}
	for _, r := range p.Readable {
		if r != p.TmpDir && !slices.Contains(sandbox.SystemDirs, r) {
			d.Roots = append(d.Roots, r)
		}
	}
	for _, s := range streams {
		texts := []string{s.Head, s.Tail}
		for _, h := range s.Highlights {
			texts = append(texts, h.Text)
		}
		for _, text := range texts {
			for line := range strings.Lines(text) {
				classify(d, line, p, cwd)
			}
		}
	}
	if !d.Write && !d.Read && !d.Network && !d.Signal {
		return nil
	}
	return d
}

// classify notes in d what line shows the sandbox refused.
func classify(d *notice.SandboxDenial, line string, p *sandbox.Policy, cwd string) {
	if !p.Network && networkLine.MatchString(line) {
		d.Network = true
	}
	if !deniedLine.MatchString(line) {
		return
	}
	// "/bin/bash: line 1: kill: ..." names the program first: not a path
	// the command wrote to.
	if prog, _, ok := strings.Cut(line, ": "); ok && !strings.ContainsAny(prog, " \t'\"") {
		line = line[len(prog):]
	}
	paths := pathToken.FindAllStringSubmatch(line, -1)
	if len(paths) == 0 {
		d.Signal = d.Signal || notPermitted.MatchString(line)
		return
	}
	for _, m := range paths {
		path := m[1]
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		real := resolve(filepath.Clean(path))
		switch {
		case p.Readable != nil && !beneath.Any(real, p.Readable):
			d.Read = true // read-only with roots: neither read nor written there
		case !beneath.Any(real, p.Writable):
			d.Write = true
		}
	}
}

// resolve follows the symlinks of path, or of its directory when path
// itself does not exist: a write through a symlink in the workspace that
// points out of it is refused where the link leads.
func resolve(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		return filepath.Join(dir, filepath.Base(path))
	}
	return path
}

package sandbox

import (
	"slices"

	"github.com/toold/toold/internal/beneath"
)

// Dir is a directory of a policy as resolved (Resolve): its path, symlinks
// followed, and its identity then.
type Dir struct {
	Path string
	ID   FileID
}

// NewPolicy is the policy of mode (read-only or workspace-write) for a
// session with roots, and the client's writable dirs extra, all resolved:
// workspace-write writes beneath the roots (the caller gives the session's
// cwd when it has none) and extra; read-only with roots reads beneath them
// and SystemDirs only (a system dir that is a symlink, /lib64, is read
// where it leads), and everywhere without roots.
// Private, Sockets, TmpDir and Plan are the caller's to set.
func NewPolicy(mode string, network bool, roots, extra []Dir) *Policy {
	p := &Policy{Mode: mode, Network: network, IDs: map[string]FileID{}}
	add := func(list *[]string, ds []Dir) {
		for _, d := range ds {
			*list = append(*list, d.Path)
			p.IDs[d.Path] = d.ID
		}
	}
	switch mode {
	case ModeWorkspaceWrite:
		add(&p.Writable, roots)
		add(&p.Writable, extra)
		add(&p.Extra, extra)
	case ModeReadOnly:
		if len(roots) > 0 {
			p.Readable = []string{}
			for _, s := range SystemDirs {
				if real, id, err := Resolve(s); err == nil && real == s {
					add(&p.Readable, []Dir{{real, id}})
				}
			}
			add(&p.Readable, roots)
		}
	}
	p.Writable = Dedup(p.Writable)
	p.Extra = Dedup(p.Extra)
	if p.Readable != nil {
		p.Readable = Dedup(p.Readable)
	}
	return p
}

// StillSame are the dirs of p's Extra that are still what was resolved:
// what a re-initialize that names no sandbox keeps.
func (p *Policy) StillSame() []Dir {
	var out []Dir
	for _, d := range p.Extra {
		if id, ok := p.IDs[d]; ok && Same(d, id) {
			out = append(out, Dir{d, id})
		}
	}
	return out
}

// modeRank orders the modes from the loosest to the strictest.
func modeRank(mode string) int {
	return map[string]int{ModeWorkspaceWrite: 1, ModeReadOnly: 2}[mode]
}

// Looser says how p is looser than bound ("" when it is as strict or
// stricter; a nil policy is off): a session's sandbox never gets looser
// than its last one nor than the daemon's floor.
func Looser(p, bound *Policy) string {
	switch {
	case bound == nil:
		return ""
	case p == nil:
		return "mode off"
	case modeRank(p.Mode) < modeRank(bound.Mode):
		return "mode " + p.Mode
	case p.Network && !bound.Network:
		return "network true"
	}
	for _, w := range p.Writable {
		if !beneath.Any(w, bound.Writable) {
			return "writes beneath " + w
		}
	}
	if bound.Readable != nil {
		if p.Readable == nil {
			return "reads everywhere"
		}
		for _, r := range p.Readable {
			if !beneath.Any(r, bound.Readable) {
				return "reads beneath " + r
			}
		}
	}
	for _, m := range p.Plan.Unenforced {
		if !slices.Contains(bound.Plan.Unenforced, m) {
			return "bestEffort without " + m
		}
	}
	return ""
}

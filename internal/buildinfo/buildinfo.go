package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is what the binary says about its build. The zero Info is a build
// with no build info: Version "devel", everything else unknown ("").
type Info struct {
	Module    string // the main module's path
	Version   string // the module version ("v1.2.3", a pseudo-version), or "devel"
	Revision  string // the VCS revision, "" when not built from a checkout
	Time      string // the revision's commit time (RFC 3339)
	Modified  bool   // the checkout had changes not committed
	GoVersion string // the toolchain that built it
}

// Override, when set (go build -ldflags "-X github.com/toold/toold/internal/buildinfo.Override=v1.2.3"),
// replaces the module version.
var Override string

// Read returns this binary's Info.
func Read() Info {
	info := Info{Version: "devel", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		info.Module = bi.Main.Path
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			info.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.time":
				info.Time = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if Override != "" {
		info.Version = Override
	}
	return info
}

// String is the version as one line: "toold VERSION (REVISION[, modified], GO)".
func (i Info) String() string {
	var extra []string
	if i.Revision != "" {
		rev := i.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if i.Modified {
			rev += ", modified"
		}
		extra = append(extra, "revision "+rev)
	}
	if i.GoVersion != "" {
		extra = append(extra, i.GoVersion)
	}
	s := "toold " + i.Version
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// Long is the version and every known detail, one per line.
func (i Info) Long() string {
	var b strings.Builder
	fmt.Fprintf(&b, "toold %s\n", i.Version)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "  %-9s %s\n", k, v)
		}
	}
	row("module", i.Module)
	rev := i.Revision
	if rev != "" && i.Modified {
		rev += " (modified)"
	}
	if rev == "" && i.Version == "devel" {
		// go build -buildvcs=false, or a build outside a git checkout (a
		// copy of the sources, a go run from a tarball), records none.
		rev = "unknown: built without VCS information (-buildvcs=false, in GOFLAGS too, or not in a git checkout); go install ./cmd/toold in a clone records it"
	}
	row("revision", rev)
	row("time", i.Time)
	row("go", i.GoVersion)
	return b.String()
}

// maxSocketPath is the longest unix socket path that every system takes
// (sun_path is 108 bytes on Linux, 104 on the BSDs, with the NUL).
const maxSocketPath = 103

// SocketPath is the path in dir of the shared daemon's socket for this
// build: "toold-VERSION-HASH.sock", where HASH covers the version, the
// revision and the executable (its path, size and modification time), so
// that a binary rebuilt in place, whose version and revision may not change,
// gets a daemon of its own too. When that is too long for a socket, the
// version is left out of the name (HASH still covers it).
func (i Info) SocketPath(dir string) string {
	hash := i.hash()
	p := filepath.Join(dir, "toold-"+sanitize(i.Version)+"-"+hash+".sock")
	if len(p) > maxSocketPath {
		p = filepath.Join(dir, "toold-"+hash+".sock")
	}
	return p
}

func (i Info) hash() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%t\x00", i.Version, i.Revision, i.Modified)
	if exe, err := os.Executable(); err == nil {
		fmt.Fprintf(h, "%s\x00", exe)
		if fi, err := os.Stat(exe); err == nil {
			fmt.Fprintf(h, "%d\x00%d", fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// sanitize keeps a version short and safe in a file name (a unix socket's
// path is limited to about 100 bytes).
func sanitize(v string) string {
	b := []byte(v)
	for j, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			b[j] = '_'
		}
	}
	if len(b) > 24 {
		b = b[:24]
	}
	return string(b)
}

package sandbox

import (
	"errors"
	"fmt"
	"slices"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/toold/toold/internal/beneath"
	"golang.org/x/sys/unix"
)

// devices may be opened for writing anywhere: the null devices and the
// terminal.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// The file system rights of Landlock, by the ABI that brought them.
const (
	fsRead  = llsys.AccessFSExecute | llsys.AccessFSReadFile | llsys.AccessFSReadDir
	fsFile  = llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile | llsys.AccessFSTruncate | llsys.AccessFSIoctlDev
	fsABI1  = 1<<13 - 1
	fsABI2  = fsABI1 | llsys.AccessFSRefer
	fsABI3  = fsABI2 | llsys.AccessFSTruncate
	fsABI5  = fsABI3 | llsys.AccessFSIoctlDev
	fsABI9  = fsABI5 | llsys.AccessFSResolveUnix
	netTCP  = llsys.AccessNetBindTCP | llsys.AccessNetConnectTCP
	netUDP  = llsys.AccessNetBindUDP | llsys.AccessNetConnectSendUDP
	scopeV6 = llsys.ScopeAbstractUnixSocket | llsys.ScopeSignal
)

// handledFS are the file system rights Landlock handles at abi: all it has.
func handledFS(abi int) uint64 {
	switch {
	case abi >= abiUnix:
		return fsABI9
	case abi >= abiIoctl:
		return fsABI5
	case abi >= abiTruncate:
		return fsABI3
	case abi >= abiRefer:
		return fsABI2
	}
	return fsABI1
}

// rule is one Landlock rule: a file (or dir) and what is allowed beneath it.
type rule struct {
	fd     int
	access uint64
	owned  bool // fd is the rule's own, to close after
}

// restrictLandlock restricts every thread of this process with p's rules:
// reads (everywhere, or beneath Readable) but Private's, writes beneath
// Writable, the devices; with the network off and no network namespace, no
// TCP; from ABI 6, no signal and no abstract socket beyond the sandbox.
func restrictLandlock(p *Policy, dirs *policyDirs) error {
	abi := p.Plan.ABI
	fs := handledFS(abi)
	attr := llsys.RulesetAttr{HandledAccessFS: fs}
	if abi >= abiTCP && !p.Network && !p.Plan.UserNS {
		attr.HandledAccessNet = netTCP // no rule allows a port: none
		if abi >= abiUDP {
			attr.HandledAccessNet |= netUDP
		}
	}
	if abi >= abiScope {
		attr.Scoped = scopeV6
	}
	rules, err := policyRules(p, dirs, fs)
	defer func() {
		for _, r := range rules {
			if r.owned {
				unix.Close(r.fd)
			}
		}
	}()
	if err != nil {
		return err
	}
	ruleset, err := llsys.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return fmt.Errorf("creating the ruleset: %w", err)
	}
	defer unix.Close(ruleset)
	for _, r := range rules {
		access := r.access & fs
		if !isDir(r.fd) {
			access &= fsFile
		}
		if access == 0 {
			continue
		}
		if err := llsys.LandlockAddPathBeneathRule(ruleset, &llsys.PathBeneathAttr{AllowedAccess: access, ParentFd: r.fd}, 0); err != nil {
			return fmt.Errorf("a rule: %w", err)
		}
	}
	return llsys.AllThreadsLandlockRestrictSelf(ruleset, 0)
}

// policyRules are p's rules. Reads: "/" or each Readable dir, split
// around the Private dirs beneath them unless the mount namespace hid
// those. Writes (every right, refer and resolve_unix included): each
// Writable dir. The devices: read and write.
func policyRules(p *Policy, dirs *policyDirs, fs uint64) ([]rule, error) {
	read := []string{"/"}
	if p.Readable != nil {
		read = p.Readable
	}
	var private []string
	if !p.Plan.UserNS {
		private = p.Private
	}
	var rules []rule
	for _, path := range read {
		fd, ok := dirs.fds[path]
		if !ok {
			continue
		}
		split, err := readRules(path, fd, private)
		rules = append(rules, split...)
		if err != nil {
			return rules, err
		}
	}
	for _, path := range p.Writable {
		if fd, ok := dirs.fds[path]; ok {
			rules = append(rules, rule{fd: fd, access: fs})
		}
	}
	for _, path := range devices {
		if fd, ok := dirs.fds[path]; ok {
			rules = append(rules, rule{fd: fd, access: fsFile})
		}
	}
	return rules, nil
}

// readRules allow reads beneath dir (open on fd) but beneath the private
// dirs: a dir that holds one is replaced by its entries (as they are now),
// each of those that is not private or a symlink readable, recursively.
// Landlock only adds rights, so this is how a subtree is left out.
func readRules(dir string, fd int, private []string) ([]rule, error) {
	var inside []string
	for _, x := range private {
		if beneath.Dir(x, dir) {
			inside = append(inside, x)
		}
	}
	if len(inside) == 0 {
		return []rule{{fd: fd, access: fsRead}}, nil
	}
	if slices.Contains(inside, dir) {
		return nil, nil
	}
	names, err := readDirNames(fd)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	var rules []rule
	for _, name := range names {
		child := dir + "/" + name
		if dir == "/" {
			child = "/" + name
		}
		cfd, err := unix.Openat(fd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if isSymlink(cfd) {
			unix.Close(cfd)
			continue // its target is read under its own name, if allowed
		}
		sub, err := readRules(child, cfd, inside)
		if len(sub) == 1 && sub[0].fd == cfd {
			sub[0].owned = true
		} else {
			unix.Close(cfd)
		}
		rules = append(rules, sub...)
		if err != nil {
			return rules, err
		}
	}
	return rules, nil
}

// readDirNames lists the dir open (O_PATH) on fd.
func readDirNames(fd int) ([]string, error) {
	dfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	var names []string
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(dfd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

func isDir(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}

func isSymlink(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toold/toold/internal/beneath"
	"golang.org/x/sys/unix"
)

// HostSockets are the dirs and socket files of services a sandboxed
// command could ask to act for it (run a unit, start a container or a
// virtual machine, write to a database, type into a terminal), hidden in
// the session's mount namespace beside the policy's Private and Sockets:
// the users' runtime dirs (the session bus, ssh and gpg agents, pipewire),
// docker's, containerd's, podman's, CRI-O's, LXD's, snapd's and libvirt's
// sockets, PostgreSQL's and MySQL's, the system bus, systemd's private
// socket, X11's and ICE's, and screen's and tmux's (tmuxDir). (/var/run
// is /run on most systems: a path through a symlink is left, its target
// is covered under its own name.)
var HostSockets = []string{"/run/user", "/run/docker.sock", "/var/run/docker.sock", "/run/containerd",
	"/run/podman", "/run/crio", "/run/snapd.socket", "/run/snapd-snap.socket", "/var/snap/lxd/common/lxd",
	"/var/lib/lxd", "/run/libvirt", "/var/run/libvirt", "/run/postgresql", "/var/run/postgresql",
	"/run/mysqld", "/var/run/mysqld", "/run/dbus", "/var/run/dbus", "/run/systemd/private",
	"/tmp/.X11-unix", "/tmp/.ICE-unix", "/run/screen", "/var/run/screen"}

// tmuxDir is where tmux keeps its sockets by default.
func tmuxDir() string { return "/tmp/tmux-" + strconv.Itoa(os.Getuid()) }

// hide makes this launcher's mount namespace private and covers each
// hidden path (a tmpfs over a dir, /dev/null over a file), then brings
// back the policy's dirs that lie beneath one, each by its descriptor,
// so that it is the directory that was resolved.
func hide(p *Policy, dirs *policyDirs) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("a private mount namespace: %w", err)
	}
	hidden := slices.Concat(p.Private, p.Sockets, HostSockets, []string{tmuxDir()})
	var keep []string // the policy's dirs: never hidden themselves
	for path := range dirs.fds {
		if path != "/" && !slices.Contains(devices, path) {
			keep = append(keep, path)
		}
	}
	return hideLayer(hidden, keep, dirs)
}

// hideLayer hides the outermost of hidden, then brings back the outermost
// of keep beneath each, and within those does it again.
func hideLayer(hidden, keep []string, dirs *policyDirs) error {
	tops := Dedup(slices.DeleteFunc(slices.Clone(hidden), func(h string) bool { return slices.Contains(keep, h) }))
	for _, h := range tops {
		if err := cover(h); err != nil {
			return err
		}
	}
	for _, h := range tops {
		var back []string
		for _, k := range keep {
			if strictlyBeneath(k, h) {
				back = append(back, k)
			}
		}
		for _, k := range Dedup(back) {
			if err := bringBack(h, k, dirs.fds[k]); err != nil {
				return err
			}
			var inner, innerKeep []string
			for _, x := range hidden {
				if strictlyBeneath(x, k) {
					inner = append(inner, x)
				}
			}
			for _, x := range keep {
				if strictlyBeneath(x, k) {
					innerKeep = append(innerKeep, x)
				}
			}
			if err := hideLayer(inner, innerKeep, dirs); err != nil {
				return err
			}
		}
	}
	return nil
}

func strictlyBeneath(path, dir string) bool {
	return path != dir && beneath.Dir(path, dir)
}

// cover hides path: an empty tmpfs over a dir, /dev/null over anything
// else. A path that is missing, or reached through a symlink, is left: a
// symlink's target is covered under its own name if it is one of ours.
func cover(path string) error {
	fd, err := openNoFollow(path)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil
	}
	target := fdPath(fd)
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		err = unix.Mount("tmpfs", target, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0755,size=16k,nr_inodes=256")
	} else {
		err = unix.Mount("/dev/null", target, "", unix.MS_BIND, "")
	}
	if err != nil {
		return fmt.Errorf("hiding %s: %w", path, err)
	}
	return nil
}

// bringBack binds the dir open on fd at path, beneath the covered dir h:
// the path's components below h are made in h's tmpfs.
func bringBack(h, path string, fd int) error {
	root, err := openNoFollow(h) // the tmpfs now on h
	if err != nil {
		return fmt.Errorf("bringing back %s: %w", path, err)
	}
	defer unix.Close(root)
	dir := root
	for _, name := range strings.Split(strings.TrimPrefix(path, h+"/"), "/") {
		if err := unix.Mkdirat(dir, name, 0o755); err != nil && err != unix.EEXIST {
			return fmt.Errorf("bringing back %s: %w", path, err)
		}
		next, err := unix.Openat(dir, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if dir != root {
			unix.Close(dir)
		}
		if err != nil {
			return fmt.Errorf("bringing back %s: %w", path, err)
		}
		dir = next
	}
	defer unix.Close(dir)
	if err := unix.Mount(fdPath(fd), fdPath(dir), "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("bringing back %s: %w", path, err)
	}
	return nil
}

// fdPath names the file open on fd for mount(2), which follows the link.
func fdPath(fd int) string {
	return filepath.Join("/proc/self/fd", strconv.Itoa(fd))
}

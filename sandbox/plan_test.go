package sandbox

import (
	"slices"
	"testing"
)

// TestPlan: per kernel (Landlock ABI, user namespaces, seccomp, cgroups)
// and policy, the mechanisms used, what is left unenforced, and what of
// that refuses the session (a protection with no mechanism at all).
func TestPlan(t *testing.T) {
	const (
		trunc2   = "Landlock ABI 3 needed for truncation of files outside the writable dirs, this kernel has 2"
		ioctl2   = "Landlock ABI 5 needed for ioctl on devices, this kernel has 2"
		unixNS7  = "Landlock ABI 9 needed for unix sockets by path, this kernel has 7: the mount namespace hides only the user's runtime dir, toold's socket dir, and the sockets of container engines, virtual machines, databases, X11, tmux, screen and the system bus"
		unixNS2  = "Landlock ABI 9 needed for unix sockets by path, this kernel has 2: the mount namespace hides only the user's runtime dir, toold's socket dir, and the sockets of container engines, virtual machines, databases, X11, tmux, screen and the system bus"
		unixNo7  = "Landlock ABI 9 needed for unix sockets by path (the session bus, docker's socket), this kernel has 7, and no user namespaces (restricted) for a mount namespace"
		files0   = "Landlock ABI 1 needed for file access, this kernel has 0"
		vsock    = "sockets of families that no network namespace confines (AF_VSOCK, to the hypervisor): seccomp is needed"
		escapees = "processes that leave their group and drop toold's marker outlive the session: no user namespaces (restricted) for a PID namespace, and no delegated cgroup"
		prlimit  = "resource limits of processes outside the sandbox (prlimit(2) of the daemon): no user namespaces (restricted) for a PID namespace, and no seccomp"
	)
	ws := &Policy{Mode: ModeWorkspaceWrite}
	wsNet := &Policy{Mode: ModeWorkspaceWrite, Network: true}
	for _, tc := range []struct {
		name          string
		s             Support
		p             *Policy
		mech          Plan
		unenf, refuse []string
	}{
		{"off", Support{OS: "linux", ABI: 7, UserNS: true}, &Policy{Mode: ModeOff}, Plan{}, nil, nil},
		{"6.18", Support{OS: "linux", ABI: 7, UserNS: true, Seccomp: true, Cgroups: true}, ws,
			Plan{ABI: 7, UserNS: true, Seccomp: true}, []string{unixNS7}, nil},
		{"6.18, the network on: no seccomp", Support{OS: "linux", ABI: 7, UserNS: true, Seccomp: true}, wsNet,
			Plan{ABI: 7, UserNS: true}, []string{unixNS7}, nil},
		{"Debian 12's 6.1", Support{OS: "linux", ABI: 2, UserNS: true, Seccomp: true}, ws,
			Plan{ABI: 2, UserNS: true, Seccomp: true}, []string{trunc2, ioctl2, unixNS2}, nil},
		{"6.1, the network on: abstract sockets", Support{OS: "linux", ABI: 2, UserNS: true, Seccomp: true}, wsNet,
			Plan{ABI: 2, UserNS: true}, []string{trunc2, ioctl2, "Landlock ABI 6 needed for abstract unix socket scoping, this kernel has 2", unixNS2},
			[]string{"Landlock ABI 6 needed for abstract unix socket scoping, this kernel has 2"}},
		{"no seccomp", Support{OS: "linux", ABI: 7, UserNS: true}, ws,
			Plan{ABI: 7, UserNS: true}, []string{vsock, unixNS7}, nil},
		{"restricted user namespaces", Support{OS: "linux", ABI: 7, UserNSErr: "restricted", Seccomp: true}, ws,
			Plan{ABI: 7, Seccomp: true}, []string{unixNo7, escapees}, []string{unixNo7}},
		{"restricted, with cgroups", Support{OS: "linux", ABI: 7, UserNSErr: "restricted", Seccomp: true, Cgroups: true}, ws,
			Plan{ABI: 7, Seccomp: true}, []string{unixNo7}, []string{unixNo7}},
		{"restricted, the network on: seccomp for prlimit", Support{OS: "linux", ABI: 7, UserNSErr: "restricted", Seccomp: true, Cgroups: true}, wsNet,
			Plan{ABI: 7, Seccomp: true}, []string{unixNo7}, []string{unixNo7}},
		{"restricted, no seccomp, ABI 10", Support{OS: "linux", ABI: 10, UserNSErr: "restricted", Cgroups: true}, ws,
			Plan{ABI: 10}, []string{"the network off for other sockets than TCP and UDP, which Landlock blocks: no user namespaces (restricted) and no seccomp", prlimit},
			nil},
		{"restricted, no seccomp, the network on", Support{OS: "linux", ABI: 7, UserNSErr: "restricted", Cgroups: true}, wsNet,
			Plan{ABI: 7}, []string{prlimit, unixNo7}, []string{unixNo7}},
		{"Ubuntu 24.04's 6.8", Support{OS: "linux", ABI: 4, UserNSErr: "restricted", Seccomp: true, Cgroups: true}, ws,
			Plan{ABI: 4, Seccomp: true},
			[]string{"Landlock ABI 5 needed for ioctl on devices, this kernel has 4",
				"Landlock ABI 6 needed for signal scoping, this kernel has 4, and no user namespaces (restricted) for a PID namespace",
				"Landlock ABI 6 needed for abstract unix socket scoping, this kernel has 4, and no user namespaces (restricted) for a network namespace",
				"Landlock ABI 9 needed for unix sockets by path (the session bus, docker's socket), this kernel has 4, and no user namespaces (restricted) for a mount namespace"},
			[]string{"Landlock ABI 6 needed for signal scoping, this kernel has 4, and no user namespaces (restricted) for a PID namespace",
				"Landlock ABI 6 needed for abstract unix socket scoping, this kernel has 4, and no user namespaces (restricted) for a network namespace",
				"Landlock ABI 9 needed for unix sockets by path (the session bus, docker's socket), this kernel has 4, and no user namespaces (restricted) for a mount namespace"}},
		{"no Landlock", Support{OS: "linux", UserNS: true, Seccomp: true}, ws,
			Plan{UserNS: true, Seccomp: true},
			[]string{files0, "Landlock ABI 9 needed for unix sockets by path, this kernel has 0: the mount namespace hides only the user's runtime dir, toold's socket dir, and the sockets of container engines, virtual machines, databases, X11, tmux, screen and the system bus"},
			[]string{files0}},
		{"nothing at all, the network off", Support{OS: "linux", UserNSErr: "restricted"}, ws, Plan{},
			[]string{files0,
				"the network off: no user namespaces (restricted), no seccomp, and Landlock ABI 4 needed for TCP, this kernel has 0",
				"Landlock ABI 6 needed for signal scoping, this kernel has 0, and no user namespaces (restricted) for a PID namespace",
				prlimit,
				"Landlock ABI 6 needed for abstract unix socket scoping, this kernel has 0, and no user namespaces (restricted) for a network namespace",
				"Landlock ABI 9 needed for unix sockets by path (the session bus, docker's socket), this kernel has 0, and no user namespaces (restricted) for a mount namespace",
				escapees},
			[]string{files0,
				"the network off: no user namespaces (restricted), no seccomp, and Landlock ABI 4 needed for TCP, this kernel has 0",
				"Landlock ABI 6 needed for signal scoping, this kernel has 0, and no user namespaces (restricted) for a PID namespace",
				"Landlock ABI 6 needed for abstract unix socket scoping, this kernel has 0, and no user namespaces (restricted) for a network namespace",
				"Landlock ABI 9 needed for unix sockets by path (the session bus, docker's socket), this kernel has 0, and no user namespaces (restricted) for a mount namespace"}},
		{"macOS", Support{OS: "darwin"}, ws, Plan{},
			[]string{"the sandbox needs Linux (Landlock and namespaces); this is darwin, where commands run unconfined"},
			[]string{"the sandbox needs Linux (Landlock and namespaces); this is darwin, where commands run unconfined"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.s.Plan(tc.p)
			m := got.Mechanisms()
			if m.ABI != tc.mech.ABI || m.UserNS != tc.mech.UserNS || m.Seccomp != tc.mech.Seccomp || !slices.Equal(got.Unenforced, tc.unenf) || !slices.Equal(got.Refused, tc.refuse) {
				t.Errorf("got %+v\nwant %+v unenforced %q refused %q", got, tc.mech, tc.unenf, tc.refuse)
			}
			if got.Confines() != (tc.mech.ABI > 0 || tc.mech.UserNS || tc.mech.Seccomp) {
				t.Errorf("Confines %v", got.Confines())
			}
		})
	}
}

// TestDedup: duplicates and dirs beneath another go, siblings whose names
// share a prefix stay.
func TestDedup(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"/a", "/a", "/a/b", "/a-b", "/a/b/c", "/ab"}, []string{"/a", "/a-b", "/ab"}},
		{[]string{"/x/y", "/x", "/"}, []string{"/"}},
		{[]string{"/a.b/c", "/a/c", "/a.b"}, []string{"/a.b", "/a/c"}},
	} {
		if got := Dedup(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Dedup(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

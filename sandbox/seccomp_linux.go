package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter of a sandbox whose network is off: a socket may be
// made of the families that stay within the sandbox only, AF_UNIX and
// AF_NETLINK (its routes and addresses), and AF_INET and AF_INET6 in a
// network namespace of its own (loopback). So AF_VSOCK, which no network
// namespace confines (it reaches the hypervisor), is refused everywhere,
// and without a network namespace every IP socket (codex's approach).
// io_uring, whose requests make sockets where this filter does not see
// them, is refused too (ENOSYS: programs fall back to plain calls), and so
// is the other ABI of the machine (x32; i386 on amd64, arm on arm64) but
// for the calls of its own that make no sockets.
//
// Without a PID namespace the filter also keeps prlimit(2) to the calling
// process (pid 0): Landlock's scoping covers signals, not resource limits,
// and a command could otherwise set the daemon's RLIMIT_CPU or
// RLIMIT_NOFILE, ending or crippling it. The filter is then installed with
// the network on too.

// seccompArch is what the filter knows of one syscall ABI: the audit arch,
// and the numbers of socket(2), socketpair(2) (0 where the ABI has none),
// socketcall(2) (0: none) and io_uring_setup(2).
type seccompArch struct {
	audit                                      uint32
	socket, socketpair, socketcall, ioUringSet uint32
	prlimit                                    uint32
}

// seccompRules say what the filter refuses.
type seccompRules struct {
	sockets bool // the network off: sockets of families beyond the sandbox, io_uring
	inet    bool // with sockets: AF_INET and AF_INET6 are the sandbox's (a network namespace)
	prlimit bool // prlimit(2) of another process
}

// BPF's seccomp_data: nr at 0, arch at 4, args[0]'s low word at 16 (little
// endian, as amd64 and arm64 are).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

const (
	retAllow = unix.SECCOMP_RET_ALLOW
	retErrno = unix.SECCOMP_RET_ERRNO
)

// seccompAvailable reports whether this kernel takes seccomp filters.
func seccompAvailable() bool {
	if native.audit == 0 {
		return false
	}
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err == nil
}

// installSeccomp installs the filter on every thread (TSYNC); no new
// privileges must be set.
func installSeccomp(r seccompRules) error {
	if native.audit == 0 {
		return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	prog := seccompProgram(r)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return e
	}
	return nil
}

// bpf assembles a program with forward jumps to labels.
type bpf struct {
	prog   []unix.SockFilter
	labels map[string]int
	fix    []bpfFix
}

type bpfFix struct {
	at       int
	jt, jf   string // labels; "" falls through
	absolute string // a JA's label
}

func (b *bpf) stmt(code uint16, k uint32) { b.prog = append(b.prog, unix.SockFilter{Code: code, K: k}) }
func (b *bpf) label(name string)          { b.labels[name] = len(b.prog) }
func (b *bpf) ret(k uint32)               { b.stmt(unix.BPF_RET|unix.BPF_K, k) }
func (b *bpf) load(off uint32)            { b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, off) }

// jeq jumps to jt when the accumulator is k, else falls through.
func (b *bpf) jeq(k uint32, jt string) {
	b.fix = append(b.fix, bpfFix{at: len(b.prog), jt: jt})
	b.stmt(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, k)
}

// jset jumps to jt when the accumulator has a bit of k.
func (b *bpf) jset(k uint32, jt string) {
	b.fix = append(b.fix, bpfFix{at: len(b.prog), jt: jt})
	b.stmt(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, k)
}

func (b *bpf) resolve() []unix.SockFilter {
	for _, f := range b.fix {
		if f.jt != "" {
			b.prog[f.at].Jt = uint8(b.labels[f.jt] - f.at - 1)
		}
	}
	return b.prog
}

// seccompProgram is the filter (see above).
func seccompProgram(r seccompRules) []unix.SockFilter {
	b := &bpf{labels: map[string]int{}}
	errno := func(e unix.Errno) uint32 { return retErrno | uint32(e) }
	b.load(offArch)
	b.jeq(native.audit, "native")
	if compat.audit != 0 {
		b.jeq(compat.audit, "compat")
	}
	b.ret(errno(unix.ENOSYS)) // an ABI this machine should not have
	for _, a := range []struct {
		name string
		arch seccompArch
	}{{"native", native}, {"compat", compat}} {
		if a.arch.audit == 0 {
			continue
		}
		b.label(a.name)
		b.load(offNr)
		if a.name == "native" && native.audit == unix.AUDIT_ARCH_X86_64 {
			b.jset(0x40000000, "x32") // __X32_SYSCALL_BIT
		}
		if r.sockets {
			b.jeq(a.arch.socket, "family")
			if a.arch.socketpair != 0 {
				b.jeq(a.arch.socketpair, "family")
			}
			if a.arch.socketcall != 0 {
				b.jeq(a.arch.socketcall, "eacces")
			}
			b.jeq(a.arch.ioUringSet, "enosys")
		}
		if r.prlimit {
			b.jeq(a.arch.prlimit, "self")
		}
		b.ret(retAllow)
	}
	b.label("family")
	b.load(offArg0)
	b.jeq(unix.AF_UNIX, "allow")
	b.jeq(unix.AF_NETLINK, "allow")
	if r.inet {
		b.jeq(unix.AF_INET, "allow")
		b.jeq(unix.AF_INET6, "allow")
	}
	b.label("eacces")
	b.ret(errno(unix.EACCES))
	b.label("self")
	b.load(offArg0)
	b.jeq(0, "allow")
	b.ret(errno(unix.EPERM))
	b.label("x32")
	b.ret(errno(unix.ENOSYS))
	b.label("enosys")
	b.ret(errno(unix.ENOSYS))
	b.label("allow")
	b.ret(retAllow)
	return b.resolve()
}

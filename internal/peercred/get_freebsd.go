package peercred

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// get reads LOCAL_PEERCRED. The xucred ends in a union of a pointer and
// cr_pid, which x/sys leaves unnamed: the pid is read as the union's first
// four bytes (the platforms are little-endian); FreeBSD before 13 leaves
// it 0.
func get(fd int) (Cred, error) {
	x, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return Cred{}, err
	}
	union := unsafe.Sizeof(*x) - unsafe.Sizeof(uintptr(0))
	pid := *(*int32)(unsafe.Add(unsafe.Pointer(x), union))
	return Cred{Pid: pid, Uid: x.Uid}, nil
}

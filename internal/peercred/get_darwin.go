package peercred

import "golang.org/x/sys/unix"

// get reads LOCAL_PEERCRED for the uid and LOCAL_PEERPID for the pid.
func get(fd int) (Cred, error) {
	x, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return Cred{}, err
	}
	pid, err := unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	if err != nil {
		return Cred{}, err
	}
	return Cred{Pid: int32(pid), Uid: x.Uid}, nil
}

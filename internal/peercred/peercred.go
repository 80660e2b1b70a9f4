package peercred

import (
	"errors"
	"fmt"
	"syscall"
)

// Cred is a socket peer's credentials.
type Cred struct {
	Pid int32 // 0 where the system did not say
	Uid uint32
}

// ErrNoPid is returned by Pid when the system does not say the peer's pid.
var ErrNoPid = errors.New("peercred: the system does not say the peer's pid")

// Of reads the credentials of c's peer, a unix socket connection's.
func Of(c syscall.Conn) (Cred, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Cred{}, fmt.Errorf("peercred: %w", err)
	}
	var cred Cred
	var gerr error
	if err := raw.Control(func(fd uintptr) { cred, gerr = get(int(fd)) }); err != nil {
		return Cred{}, fmt.Errorf("peercred: %w", err)
	}
	if gerr != nil {
		return Cred{}, fmt.Errorf("reading the peer's credentials: %w", gerr)
	}
	return cred, nil
}

// Pid reads the pid of c's peer; ErrNoPid when the system gives none (a
// pid of 0 must never reach kill(2), which would signal our own group).
func Pid(c syscall.Conn) (int, error) {
	cred, err := Of(c)
	if err != nil {
		return 0, err
	}
	if cred.Pid <= 0 {
		return 0, ErrNoPid
	}
	return int(cred.Pid), nil
}

package sandbox

import (
	"net"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// FuzzRecvMsg: whatever a launcher (one a command took over) writes on the
// control socket, the daemon's reader returns a message or an error,
// never more than maxMsg bytes and never a panic, and closes the
// descriptors of what it refuses.
func FuzzRecvMsg(f *testing.F) {
	f.Add([]byte{0, 0, 0, 2, '{', '}'})
	f.Add([]byte{0, 0, 0, 9, '{', '"', 'e', 'r', 'r', '"', ':', '1', '}'})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Skip(err)
		}
		w := os.NewFile(uintptr(pair[0]), "w")
		rf := os.NewFile(uintptr(pair[1]), "r")
		c, err := net.FileConn(rf)
		rf.Close()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go func() {
			w.Write(b)
			w.Close()
		}()
		var rep reply
		fds, err := recvMsg(c.(*net.UnixConn), &rep)
		if err == nil && len(fds) != 0 {
			t.Errorf("descriptors from nowhere: %v", fds)
		}
	})
}

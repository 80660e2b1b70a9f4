package peercred

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestOf: both ends of a real unix socket see this process, its uid and
// its pid.
func TestOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := l.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, conn := range map[string]*net.UnixConn{"server": s, "client": c} {
		cred, err := Of(conn)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cred.Uid != uint32(os.Geteuid()) || int(cred.Pid) != os.Getpid() {
			t.Errorf("%s: %+v, want uid %d pid %d", name, cred, os.Geteuid(), os.Getpid())
		}
		if pid, err := Pid(conn); err != nil || pid != os.Getpid() {
			t.Errorf("%s: Pid = %d, %v", name, pid, err)
		}
	}
}

// TestNotASocket: a pipe has no peer credentials: an error, not a zero
// Cred taken for root's.
func TestNotASocket(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if cred, err := Of(r); err == nil {
		t.Fatalf("a pipe's credentials: %+v", cred)
	}
	if _, err := Pid(r); err == nil || errors.Is(err, ErrNoPid) {
		t.Fatalf("Pid of a pipe: %v", err)
	}
}

package adversarial

import (
	"fmt"
	"net"
	"strings"
	"testing"
)

// TestSandboxNoticeLowercase: a denial worded as Go prints it ("open /x:
// permission denied", here toold's own --logfile outside the project) gets
// the sandbox's notice, on every transport.
func TestSandboxNoticeLowercase(t *testing.T) {
	transports, _ := sandboxTransports(t)
	bin := daemonBinary(t)
	for name, open := range transports {
		t.Run(name, func(t *testing.T) {
			w := newSandboxWorld(t)
			c := open()
			sandboxInit(t, c, 1, w, "workspace-write")
			r := runProbe(t, c, 2, w, sandboxProbe{"Go's open error", bin + " serve --logfile " + w.out + "/log </dev/null",
				[]string{"open " + w.out + "/log: permission denied"}, false})
			if r.Notice == nil || !strings.Contains(*r.Notice, "writes outside the workspace are blocked by the sandbox") {
				t.Errorf("notice %v for %q", deref(r.Notice), r.output())
			}
		})
	}
}

// TestSandboxNoticeHostLoopback: with the network off a listener on the
// host's 127.0.0.1 refuses the command (its loopback is its namespace's),
// and the notice says so truthfully, on every transport.
func TestSandboxNoticeHostLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	transports, _ := sandboxTransports(t)
	for name, open := range transports {
		t.Run(name, func(t *testing.T) {
			w := newSandboxWorld(t)
			c := open()
			sandboxInit(t, c, 1, w, "workspace-write")
			r := runProbe(t, c, 2, w, sandboxProbe{"the host's loopback",
				fmt.Sprintf(`python3 -c 'import socket; socket.create_connection(("127.0.0.1", %d), timeout=3)'`, port),
				[]string{"Connection refused"}, false})
			if r.Notice == nil || !strings.Contains(*r.Notice, "only the command's own loopback is reachable, not the host's; network: true") {
				t.Errorf("notice %v for %q", deref(r.Notice), r.output())
			}
		})
	}
}

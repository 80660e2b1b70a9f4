package adversarial

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSandboxNoticeLowercase: a denial worded as Go prints it ("open /x:
// permission denied", here toold's own --logfile outside the project) gets
// the sandbox's notice, on every transport.
func TestSandboxNoticeLowercase(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "the sandbox notice's words")
	t.Parallel() // daemons and files of its own: it waits beside the others
	transports, _ := sandboxTransports(t)
	bin := daemonBinary(t)
	for name, open := range transports {
		t.Run(name, func(t *testing.T) {
			w := newSandboxWorld(t)
			c := open(t)
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
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "the sandbox notice on host loopback")
	t.Parallel() // daemons and files of its own: it waits beside the others
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
			c := open(t)
			sandboxInit(t, c, 1, w, "workspace-write")
			r := runProbe(t, c, 2, w, sandboxProbe{"the host's loopback",
				fmt.Sprintf(`%s -c 'import socket; socket.create_connection(("127.0.0.1", %d), timeout=3)'`, python3(), port),
				[]string{"Connection refused"}, false})
			if r.Notice == nil || !strings.Contains(*r.Notice, "only the command's own loopback is reachable, not the host's; network: true") {
				t.Errorf("notice %v for %q", deref(r.Notice), r.output())
			}
		})
	}
}

// TestSandboxNoticeBlamesRightly: on every transport, a read refused in
// read-only with roots is named as such (not as a write), an abstract
// socket's EPERM names abstract sockets, and a non-string writable[1] is
// named sandbox.writable[1].
func TestSandboxNoticeBlamesRightly(t *testing.T) {
	// The quick run keeps TestSandboxReadOnly on stdio instead.
	skipUnlessLong(t, "whom the sandbox notice blames")
	t.Parallel() // daemons and files of its own: it waits beside the others
	name := fmt.Sprintf("toold-test-%d", os.Getpid())
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	transports, _ := sandboxTransports(t)
	for tname, open := range transports {
		t.Run(tname, func(t *testing.T) {
			w := newSandboxWorld(t)
			c := open(t)
			m := c.call(1, "initialize", map[string]any{"sandbox": map[string]any{"mode": "workspace-write", "writable": []any{w.out, 3}}}, 30*time.Second)
			if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(string(m.Error.Data), `"field":"sandbox.writable[1]"`) {
				t.Errorf("writable [dir, 3]: %+v", m.Error)
			}
			sandboxInit(t, c, 2, w, "read-only")
			r := runProbe(t, c, 3, w, sandboxProbe{"read outside the roots", "cat " + w.secret, []string{"Permission denied"}, false})
			if r.Notice == nil || !strings.Contains(*r.Notice, "reads and writes outside the roots are blocked by the sandbox: read-only with roots allows reads beneath "+w.proj) ||
				strings.Contains(*r.Notice, "writes are blocked") {
				t.Errorf("read outside the roots: notice %v", deref(r.Notice))
			}
			// The network on: no namespace of its own, so the abstract
			// socket is the host's, and Landlock's scoping refuses it.
			c2 := open(t)
			sandboxCall(t, c2, 1, "initialize", map[string]any{"cwd": w.proj, "roots": []string{w.proj},
				"sandbox": map[string]any{"mode": "workspace-write", "network": true}}, nil)
			r = runProbe(t, c2, 2, w, sandboxProbe{"abstract socket", python3() + ` -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect("\0` + name + `")'`,
				[]string{"Operation not permitted"}, false})
			if r.Notice == nil || !strings.Contains(*r.Notice, "abstract unix socket") {
				t.Errorf("abstract socket: notice %v for %q", deref(r.Notice), r.output())
			}
		})
	}
}

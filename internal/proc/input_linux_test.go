package proc

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// TestWaitingForInputWays: a process blocked reading its stdin pipe is
// found however it waits (read, select, poll, epoll), and not when the
// wait also watches a socket, nor when it reads another pipe or sleeps.
func TestWaitingForInputWays(t *testing.T) {
	python, err := testenv.Python()
	if err != nil {
		t.Skipf("python3: %v", err)
	}
	cases := []struct {
		name, program string
		waits         bool
	}{
		{"read", "import sys; sys.stdin.read(1)", true},
		{"select", "import select, sys; select.select([sys.stdin], [], [])", true},
		{"poll", "import select, sys; p = select.poll(); p.register(sys.stdin, select.POLLIN); p.poll()", true},
		{"epoll", "import select, sys; e = select.epoll(); e.register(sys.stdin.fileno(), select.EPOLLIN); e.poll()", true},
		{"select with a socket", "import select, socket, sys; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); select.select([sys.stdin, s], [], [])", false},
		{"read of another pipe", "import os; r, w = os.pipe(); os.read(r, 1)", false},
		{"sleep", "import time; time.sleep(60)", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// It says "ready" just before it blocks: python3 may be a shim
			// that takes seconds to exec the program on a loaded machine.
			cmd := exec.Command(python, "-c", "import sys; print('ready', flush=True); "+c.program)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			ready := make(chan struct{})
			go func() {
				b := make([]byte, 6)
				io.ReadFull(stdout, b)
				close(ready)
			}()
			select {
			case <-ready:
			case <-time.After(30 * time.Second):
				t.Fatal("the program did not start")
			}
			t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
			in := Input{}
			var st syscall.Stat_t
			if err := syscall.Fstat(int(stdin.(*os.File).Fd()), &st); err != nil {
				t.Fatal(err)
			}
			in.PipeDev, in.PipeIno = uint64(st.Dev), st.Ino
			// Found within 5 s if it waits; not in 1 s if it does not.
			wait := 5 * time.Second
			if !c.waits {
				wait = time.Second
			}
			got := testenv.Until(wait, func() bool { return WaitingForInput(cmd.Process.Pid, in) })
			if got != c.waits {
				t.Errorf("WaitingForInput = %v, want %v", got, c.waits)
			}
			if WaitingForInput(cmd.Process.Pid, Input{}) {
				t.Error("waiting for input given none")
			}
		})
	}
}

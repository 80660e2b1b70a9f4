package reaptest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/proc"
	"github.com/toold/toold/internal/testenv"
)

// TestReapsOrphanedMembers: a group member whose parent died comes back to
// the test binary and, once it exits, is reaped; the leader, which os/exec
// waits for, is not.
func TestReapsOrphanedMembers(t *testing.T) {
	if !Start() {
		t.Skip("no child subreaper here")
	}
	cmd := exec.Command("sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	member, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	leader := exec.Command("sleep", "0.05")
	leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	// Adopted: its parent, the shell, has exited.
	if !testenv.Until(5*time.Second, func() bool { return parent(member) == os.Getpid() }) {
		t.Fatalf("the member %d was not adopted: its parent is %d", member, parent(member))
	}
	syscall.Kill(member, syscall.SIGKILL)
	testenv.WaitFor(t, 5*time.Second, fmt.Sprintf("the orphaned member %d to be reaped", member), func() bool {
		_, err := proc.Stat(member)
		return err != nil
	})
	if err := leader.Wait(); err != nil {
		t.Fatalf("the leader's own wait: %v", err)
	}
}

// parent is pid's parent's pid (0 when pid is gone).
func parent(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:])) // state ppid ...
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

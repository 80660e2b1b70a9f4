package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	osexec "os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

var (
	probeOnce sync.Once
	probed    Support
	probeDone atomic.Bool
)

// Probed is Probe's result if Probe has run, without running it.
func Probed() (Support, bool) {
	if !probeDone.Load() {
		return Support{}, false
	}
	return Probe(), true
}

// Probe finds what this system can enforce, once per process: the
// Landlock ABI (capped by TOOLD_SANDBOX_ABI), whether a user namespace
// with capabilities in its mount, PID and network namespaces can be made
// (not with TOOLD_SANDBOX_USERNS=0), seccomp, and a delegated cgroup.
func Probe() Support {
	probeOnce.Do(func() {
		defer probeDone.Store(true)
		probed.OS = runtime.GOOS
		abi, _ := llsys.LandlockGetABIVersion()
		probed.ABI = capABI(abi)
		probed.Seccomp = seccompAvailable()
		probed.Cgroups = CgroupsDelegated()
		if userNSOff() {
			probed.UserNSErr = EnvUserNS + "=0"
			return
		}
		if err := probeUserNS(); err != nil {
			probed.UserNSErr = err.Error()
		} else {
			probed.UserNS = true
		}
	})
	return probed
}

// probeUserNS starts the probe in a user, mount and network namespace,
// where it uses what a session's launcher uses. Where user namespaces are
// restricted (Ubuntu 24.04's AppArmor rule) making one succeeds but the
// capabilities in it are gone, and the probe fails.
//
// It tells success by what the probe prints, not only by its exit status:
// a daemon that adopts orphans (exec.Runner.AdoptOrphans) reaps every child
// that exits, this one too at times, and Wait then fails with ECHILD
// although the probe went well.
func probeUserNS() error {
	cmd := &osexec.Cmd{Path: "/proc/self/exe", Args: []string{LauncherName, probeFlag}, Env: launcherEnv(), Dir: "/",
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	namespaces(cmd.SysProcAttr, true)
	out, err := cmd.CombinedOutput()
	if bytes.HasSuffix(out, []byte(probeOK)) {
		return nil
	}
	if err == nil {
		err = errors.New("the probe did not say it was ready")
	}
	if len(out) > 0 {
		return fmt.Errorf("restricted: %w: %s", err, bytes.TrimSpace(out))
	}
	return fmt.Errorf("a user namespace: %w", err)
}

package exec_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/sandbox"
)

// testPolicy is workspace-write beneath dir (and a TMPDIR of its own),
// network off, at what this kernel enforces.
func testPolicy(t testing.TB, dir string) *sandbox.Policy {
	t.Helper()
	p := &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, TmpDir: t.TempDir()}
	p.Writable = []string{dir, p.TmpDir}
	p.Plan = sandbox.Probe().Plan(p)
	if len(p.Plan.Refused) > 0 {
		t.Fatalf("this kernel cannot enforce the sandbox: %v", p.Plan.Refused)
	}
	return p
}

// TestSandboxedGroup: a sandboxed command is this process's child in a
// group of its own (its session's launcher forks it so), so a timeout ends
// its whole group, and a descendant that leaves the group is found by its
// marker (among the children of the session's PID namespace's init) and
// ended; the first Run of a policy starts its sandbox, the next ones use
// it. In a child test process (inChild):
// AdoptOrphans makes the process a child subreaper that reaps every child
// not its Runner's, which would take the waits of the other tests'
// commands.
func TestSandboxedGroup(t *testing.T) {
	if !exec.CanAdoptOrphans {
		t.Skip("no child subreaper here")
	}
	if inChild(t) {
		return
	}
	r := newRunner(t)
	if err := r.AdoptOrphans(); err != nil {
		t.Fatal(err)
	}
	pol := testPolicy(t, t.TempDir())
	// A third run, the sandbox used again, with TOOLD_LONG=1: the quick
	// run's second run already uses the one the first started.
	for _, run := range testenv.Size([]string{"cold", "warm"}, []string{"cold", "warm", "warm again"}) {
		t.Run(run, func(t *testing.T) { sandboxedGroup(t, r, pol) })
	}
}

func sandboxedGroup(t *testing.T, r *exec.Runner, pol *sandbox.Policy) {
	dir := pol.Writable[0]
	// The escapee is found by its argv: its pid inside the PID namespace
	// is not the one this process sees.
	nap := fmt.Sprintf("30.%d%d", os.Getpid(), time.Now().UnixNano()%1e6)
	spec := exec.Spec{Command: "echo $$ > leader; (setsid sleep " + nap + " &); sleep 30",
		Dir: dir, Output: defaults, Timeout: 300 * time.Millisecond, Sandbox: pol}
	res, err := r.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.Signal == nil {
		t.Fatalf("want a timeout ended by a signal: %+v", res)
	}
	// Writes outside fail, with the kernel's error, in the command's cwd.
	out, err := r.Run(context.Background(), exec.Spec{Command: "pwd; echo x > " + t.TempDir() + "/x", Dir: dir, Output: defaults, Sandbox: pol, MergeStderr: true})
	if err != nil || !strings.Contains(out.Stdout.Head, dir+"\n") || !strings.Contains(out.Stdout.Head, "Permission denied") {
		t.Fatalf("%+v %v", out.Stdout, err)
	}
	var pid string
	ended := func() bool {
		pid = pidOf("sleep\x00" + nap + "\x00")
		stat, _ := os.ReadFile("/proc/" + pid + "/stat")
		return pid == "" || strings.Contains(string(stat), ") Z ")
	}
	if !testenv.Until(5*time.Second, ended) {
		t.Fatalf("the escaped descendant %s outlives its sandboxed command", pid)
	}
}

// pidOf is a process whose command line is cmdline, "" if none.
func pidOf(cmdline string) string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if b, err := os.ReadFile(d + "/cmdline"); err == nil && string(b) == cmdline {
			return filepath.Base(d)
		}
	}
	return ""
}

// BenchmarkExecTrueSandboxed measures what the sandbox costs a command: Runner.Run of `true`
// (through bash -c, as exec runs a command string) without a sandbox and
// with one (workspace-write, network off, at what this kernel has, as
// TOOLD_SANDBOX_ABI and TOOLD_SANDBOX_USERNS say), interleaved in one loop
// so that every side sees the same load. The sandboxed side uses its
// session's sandbox (as every exec of a session but its first does);
// "cold" is a session's first Run, which starts its sandbox. It reports
// each side's median and the ratios to the plain one.
func BenchmarkExecTrueSandboxed(b *testing.B) {
	r := newRunner(b)
	dir := b.TempDir()
	// As bestEffort would: a row (TOOLD_SANDBOX_USERNS=0) may leave a
	// protection without a mechanism; it is timed with what it has.
	boxed := &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, TmpDir: b.TempDir()}
	boxed.Writable = []string{dir, boxed.TmpDir}
	boxed.Plan = sandbox.Probe().Plan(boxed)
	b.Logf("plan: Landlock ABI %d, user namespaces %v, seccomp %v", boxed.Plan.ABI, boxed.Plan.UserNS, boxed.Plan.Seccomp)
	run := func(p *sandbox.Policy) time.Duration {
		start := time.Now()
		res, err := r.Run(context.Background(), exec.Spec{Command: "true", Dir: dir, Output: defaults, Sandbox: p})
		if err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
			b.Fatalf("%+v %v", res, err)
		}
		return time.Since(start)
	}
	var plain, warm, cold []time.Duration
	r.Run(context.Background(), exec.Spec{Command: "true", Dir: dir, Output: defaults, Sandbox: boxed}) // starts its sandbox
	for i := 0; i < b.N; i++ {
		fresh := *boxed
		fresh.TmpDir = fmt.Sprint(boxed.TmpDir, "/", i) // a session of its own
		sides := []func(){
			func() { plain = append(plain, run(nil)) },
			func() { warm = append(warm, run(boxed)) },
			func() { cold = append(cold, run(&fresh)); r.EndSandbox(fresh.TmpDir) },
		}
		for j := range sides {
			sides[(i+j)%len(sides)]()
		}
	}
	mp, mw, mc := median(plain), median(warm), median(cold)
	b.ReportMetric(float64(mp.Microseconds())/1000, "ms-plain")
	b.ReportMetric(float64(mw.Microseconds())/1000, "ms-sandboxed")
	b.ReportMetric(float64(mc.Microseconds())/1000, "ms-cold")
	b.ReportMetric(float64(mw)/float64(mp), "ratio")
	b.ReportMetric(float64(mc)/float64(mp), "ratio-cold")
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

package sandbox

import (
	"errors"
	osexec "os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

// TestPool: a policy's launcher is started once and kept (the same
// Instance, one start, its commands run); Retire and End make the next Get
// start another, End only for the session named; Stop refuses new
// launchers with ErrPoolClosed, and Close ends the rest.
func TestPool(t *testing.T) {
	a := policy(t, ModeWorkspaceWrite, false, t.TempDir())
	b := policy(t, ModeWorkspaceWrite, false, t.TempDir())
	if !a.Plan.Confines() {
		t.Skip("no sandbox on this system")
	}
	var starts atomic.Int32
	p := &Pool{Start: func(c *osexec.Cmd) error { starts.Add(1); return c.Start() }}
	defer p.Close()
	prev := map[*Policy]*Instance{}
	for _, step := range []struct {
		name   string
		before func()
		pol    *Policy
		fresh  bool // a new launcher started
	}{
		{"first use starts", nil, a, true},
		{"second use keeps", nil, a, false},
		{"another policy starts its own", nil, b, true},
		{"retired starts anew", func() { p.Retire(a, prev[a]) }, a, true},
		{"another session's end keeps", func() { p.End(b.TmpDir) }, a, false},
		{"its session's end starts anew", func() { p.End(a.TmpDir) }, a, true},
	} {
		if step.before != nil {
			step.before()
		}
		n := starts.Load()
		in, err := p.Get(step.pol, nil)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if fresh := starts.Load() > n; fresh != step.fresh || (in == prev[step.pol]) == step.fresh {
			t.Errorf("%s: started a launcher %v, same instance %v; want a new one %v", step.name, fresh, in == prev[step.pol], step.fresh)
		}
		prev[step.pol] = in
		if out, st := spawn(t, in, "echo ok", nil); !st.Success() || strings.TrimSpace(out) != "ok" {
			t.Errorf("%s: its command: %q, %v", step.name, out, st)
		}
	}
	p.Stop()
	if _, err := p.Get(b, nil); !errors.Is(err, ErrPoolClosed) {
		t.Errorf("Get after Stop: %v, want ErrPoolClosed", err)
	}
	if _, err := p.Get(a, nil); err != nil {
		t.Errorf("Get after Stop of a started launcher: %v, want it kept until Close", err)
	}
}

package adversarial

import (
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

package methods

import (
	"context"
	"testing"
)

// BenchmarkExecTrue is exec of `true` through the method (params decoded,
// the command run, its result and notice made), what bench/execcat.sh
// times over the wire beside bash -c true from os/exec; "adopting" with the
// runner a child subreaper, as the daemon's is.
func BenchmarkExecTrue(b *testing.B) {
	for _, adopt := range []bool{false, true} {
		name := "plain"
		if adopt {
			name = "adopting"
		}
		b.Run(name, func(b *testing.B) {
			svc, s := newExecService(b, nil)
			if adopt {
				if err := svc.Runner.AdoptOrphans(); err != nil {
					b.Skip(err)
				}
			}
			p := []byte(`{"command":"true"}`)
			for b.Loop() {
				if _, err := svc.Exec(context.Background(), s, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

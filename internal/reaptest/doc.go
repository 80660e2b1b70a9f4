// Package reaptest reaps, in a test binary, the processes of command
// groups that their parent left behind, as the daemon's exec.Runner does
// once it adopts orphans: a group counts as alive until its zombies are
// reaped, and a Runner waits for its groups (up to the 2 s kill delay)
// before Close returns. Without it every test whose command left a member
// behind (a timeout, a cancel, a background child) waited for init to reap
// it: a second or more in some containers, never in others.
//
// It is for tests only: no package of the daemon imports it.
package reaptest

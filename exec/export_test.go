package exec

import "github.com/toold/toold/orphans"

// For the external tests: the reaper's look and the poller's wait.
var (
	ExitedChild = orphans.ExitedChild
	WaitExit    = waitExit
)

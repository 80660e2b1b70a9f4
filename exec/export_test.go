package exec

// For the external tests: the reaper's look and the poller's wait.
var (
	ExitedChild = exitedChild
	WaitExit    = waitExit
)

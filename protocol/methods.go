package protocol

// Method names, as they go on the wire.
const (
	MethodInitialize    = "initialize"
	MethodSessionClose  = "session/close"
	MethodShutdown      = "shutdown"
	MethodExit          = "exit"
	MethodCancelRequest = "$/cancelRequest"
	MethodStats         = "stats"
	MethodRead          = "read"
	MethodReadBytes     = "readBytes"
	MethodPage          = "page"
	MethodExec          = "exec"

	// MethodClient is the notification a forwarder sends the daemon before
	// the client's first message: the cwd and environment of the client's
	// side (ClientParams), which stand in for the daemon's own as the
	// session's defaults. It is not listed in initialize's methods.
	MethodClient = "$/toold/client"
	// MethodExitCode is the notification the daemon sends a forwarder last,
	// after the client's exit: the exit code (ExitCodeParams) that a stdio
	// daemon would have ended with, for the forwarder to end with it. The
	// forwarder consumes it; the client never sees it.
	MethodExitCode = "$/toold/exitCode"
)

// Methods lists, sorted, every method initialize reports.
var Methods = []string{
	MethodCancelRequest, MethodExec, MethodExit, MethodInitialize, MethodPage,
	MethodRead, MethodReadBytes, MethodSessionClose, MethodShutdown, MethodStats,
}

// ClientParams are MethodClient's params.
type ClientParams struct {
	Cwd string            `json:"cwd"`
	Env map[string]string `json:"env"`
}

// ExitCodeParams are MethodExitCode's params.
type ExitCodeParams struct {
	Code int `json:"code"`
}

package protocol

// toold's error codes (PROTOCOL.md, "Errors"). The generic JSON-RPC codes
// (-32700, -32600, -32601, -32602, -32603, -32800) belong to package rpc.
const (
	// CodeNoSuchFile: no such file or spool.
	CodeNoSuchFile int64 = -32001
	// CodeAccessDenied: outside the session's roots, or no permission.
	CodeAccessDenied int64 = -32002
	// CodeIsDirectory: the path is a directory.
	CodeIsDirectory int64 = -32003
	// CodeShutDown: the server has been shut down.
	CodeShutDown int64 = -32004
	// CodeStartFailed: the command could not be started.
	CodeStartFailed int64 = -32005
	// CodeTooManyConnections: the shared daemon serves as many connections
	// of the client's uid as it allows; the client may retry later.
	CodeTooManyConnections int64 = -32006
	// CodeSandboxUnavailable: the sandbox initialize asked for cannot be
	// enforced by this kernel (and bestEffort is not set); the message
	// names what is missing.
	CodeSandboxUnavailable int64 = -32007
)

// PathData is error.data for an error about a path.
type PathData struct {
	Path string `json:"path"`
}

// SpoolData is error.data for an error about a spool.
type SpoolData struct {
	Spool string `json:"spool"`
}

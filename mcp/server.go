package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// Server exposes a toold daemon's methods as MCP tools. Each MCP session
// gets a daemon connection of its own, and with it a toold session: its
// spools live as long as the MCP session does.
type Server struct {
	// Init are the initialize params each daemon session starts with (the
	// command line's roots and limits), sent again with the roots the MCP
	// client announces, which narrow Init's roots. connect must have sent
	// them already; nil means none.
	Init map[string]any

	version string
	connect func(ctx context.Context) (*rpc.Client, error)
	log     *slog.Logger
}

// NewServer returns a Server that reports version in its serverInfo and
// calls connect once per MCP session for a connection to the daemon (the
// Server closes it when the session ends). A nil logger means slog.Default().
func NewServer(version string, connect func(ctx context.Context) (*rpc.Client, error), logger *slog.Logger) *Server {
	if logger == nil {
		logger = slog.Default()
	}
	return &Server{version: version, connect: connect, log: logger}
}

// errDaemonGone is Run's error when the daemon connection ends first.
var errDaemonGone = errors.New("mcp: the daemon connection ended")

// Run serves one MCP session, newline-delimited JSON-RPC on in and out,
// until the client goes away (nil) or ctx is done (ctx's error). It closes
// the daemon connection, and so the toold session, before it returns.
func (s *Server) Run(parent context.Context, in io.ReadCloser, out io.WriteCloser) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	client, err := s.connect(ctx)
	if err != nil {
		return fmt.Errorf("mcp: connecting to the daemon: %w", err)
	}
	defer client.Close()
	// A session whose daemon is gone can do nothing: end it.
	gone := make(chan struct{})
	go func() {
		select {
		case <-client.Done():
			close(gone)
			cancel()
		case <-ctx.Done():
		}
	}()

	roots := newRoots(client, s.Init)
	srv := sdk.NewServer(&sdk.Implementation{Name: "toold", Version: s.version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       s.log,
		InitializedHandler: func(_ context.Context, req *sdk.InitializedRequest) {
			roots.initialized(ctx, req.Session)
		},
		RootsListChangedHandler: func(_ context.Context, req *sdk.RootsListChangedRequest) {
			go roots.sync(ctx, req.Session)
		},
		// Tools only, and a list that never changes.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	for _, t := range tools() {
		srv.AddTool(t, s.handler(client, roots, methodOf(t.Name)))
	}
	err = srv.Run(ctx, &sdk.IOTransport{Reader: in, Writer: out})
	if perr := parent.Err(); perr != nil {
		return perr // the rpc client ends with ctx too: not the daemon's doing
	}
	select {
	case <-gone:
		return errDaemonGone
	default:
		return err
	}
}

// handler forwards a tool call's arguments as the params of method and
// renders the reply. A JSON-RPC error becomes a failed tool call; only a
// broken daemon connection is a protocol error.
func (s *Server) handler(client *rpc.Client, roots *roots, method string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if err := roots.wait(ctx, req.Session); err != nil {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "error: " + err.Error()}}, IsError: true}, nil
		}
		var params any
		if a := req.Params.Arguments; len(a) > 0 && string(a) != "null" {
			params = a
		}
		if tok := req.Params.GetProgressToken(); tok != nil {
			var stop func()
			params, stop = s.relayProgress(ctx, client, req.Session, tok, params)
			defer stop()
		}
		var raw json.RawMessage
		if err := client.Call(ctx, method, params, &raw); err != nil {
			return callError(err)
		}
		if method == protocol.MethodRead {
			raw = outlineLarge(ctx, client, params, raw)
		}
		if method == protocol.MethodProcessList {
			// structuredContent must be an object, and the list is an array.
			raw = append(append([]byte(`{"processes":`), raw...), '}')
		}
		content, err := render(method, raw)
		if err != nil {
			s.log.Error("mcp: rendering a result", "method", method, "err", err)
			return nil, fmt.Errorf("mcp: rendering %s: %w", method, err)
		}
		return &sdk.CallToolResult{Content: content, StructuredContent: raw}, nil
	}
}

// callError turns a daemon call's error into a failed tool call (a JSON-RPC
// error reply) or a protocol error (a broken connection).
func callError(err error) (*sdk.CallToolResult, error) {
	var re *rpc.Error
	if errors.As(err, &re) {
		return errorResult(re), nil
	}
	return nil, err
}

// progressSeq numbers the workDoneTokens the server gives the daemon.
var progressSeq atomic.Uint64

// relayProgress asks the daemon for the progress of a call whose MCP client
// gave progress token tok, and passes each report on as
// notifications/progress. It returns the params with a workDoneToken, and
// the function that stops the relay.
func (s *Server) relayProgress(ctx context.Context, client *rpc.Client, ss *sdk.ServerSession, tok any, params any) (any, func()) {
	args := map[string]json.RawMessage{}
	if raw, ok := params.(json.RawMessage); ok && json.Unmarshal(raw, &args) != nil {
		return params, func() {} // not an object: the daemon will say so
	}
	wd := fmt.Sprintf("mcp-%d", progressSeq.Add(1))
	args["workDoneToken"], _ = json.Marshal(wd)
	last := 0.0
	remove, err := client.OnProgress(wd, func(v json.RawMessage) {
		n := &sdk.ProgressNotificationParams{ProgressToken: tok}
		var p protocol.ExecProgress
		if json.Unmarshal(v, &p) != nil {
			return
		}
		switch p.Kind {
		case protocol.ProgressExec:
			n.Progress, n.Message = float64(p.ElapsedMs)/1000, notice.ExecProgressMessage(&p)
		case protocol.ProgressIndex:
			var ip protocol.IndexProgress
			json.Unmarshal(v, &ip)
			n.Progress, n.Total, n.Message = float64(ip.BytesDone), float64(ip.BytesTotal), notice.IndexProgressMessage(&ip)
		default:
			return
		}
		n.Progress = max(n.Progress, last+0.001) // it must increase
		last = n.Progress
		if err := ss.NotifyProgress(ctx, n); err != nil {
			s.log.Debug("mcp: progress not sent", "err", err)
		}
	})
	if err != nil {
		return params, func() {}
	}
	return args, remove
}

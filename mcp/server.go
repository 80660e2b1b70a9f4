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
	// client announces, which narrow Init's roots. connect may have sent
	// them already (so that a refused session is known before Run serves);
	// Run sends them again with the notices' facts (sessionInit). nil
	// means none.
	Init map[string]any
	// Structured makes tools declare their outputSchema and results carry
	// the JSON result as structuredContent beside the text (toold mcp
	// --structured). Off by default: clients give the model one or the
	// other (codex gives structuredContent in place of the text) or both.
	Structured bool
	// Budget is the most bytes of a result's text at toold mcp's default
	// limits (protocol.MCPResultBytes from NewServer); 0 sends the daemon
	// no sizes and fits nothing, as when the limit flags set the session's.
	Budget int

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
	return &Server{version: version, connect: connect, log: logger, Budget: protocol.MCPResultBytes}
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
	var refused *rpc.Error
	if errors.As(err, &refused) {
		// The daemon answered and refused the session (a --root that
		// is not there): the configuration's fault, said to the client.
		// A daemon that cannot be reached ends toold mcp, as it did.
		return s.RunRefusing(parent, in, out, fmt.Errorf("the daemon refused the session: %w", err))
	}
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

	init := s.sessionInit()
	if err := client.Call(ctx, protocol.MethodInitialize, init, nil); err != nil {
		if perr := parent.Err(); perr != nil {
			return perr
		}
		if errors.As(err, &refused) {
			return s.RunRefusing(parent, in, out, fmt.Errorf("the daemon refused the session: %w", err))
		}
		return fmt.Errorf("%w: %w", errDaemonGone, err)
	}
	names := &namer{s: s, client: client, init: init}
	roots := newRoots(client, init)
	srv := sdk.NewServer(&sdk.Implementation{Name: "toold", Version: s.version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       quiet(s.log),
		InitializedHandler: func(_ context.Context, req *sdk.InitializedRequest) {
			names.initialized(ctx, req.Session)
			roots.initialized(ctx, req.Session)
		},
		RootsListChangedHandler: func(_ context.Context, req *sdk.RootsListChangedRequest) {
			go roots.sync(ctx, req.Session)
		},
		// Tools only, and a list that never changes.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	for _, t := range tools() {
		if !s.Structured {
			t.OutputSchema = nil
		}
		srv.AddTool(t, s.handler(client, roots, names, methodOf(t.Name)))
	}
	err = srv.Run(ctx, answering(in, out))
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
// renders the reply, within the Server's budget when the call gave no size
// of its own. A JSON-RPC error becomes a failed tool call; only a broken
// daemon connection is a protocol error.
func (s *Server) handler(client *rpc.Client, roots *roots, names *namer, method string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if p := req.Session.InitializeParams(); p == nil || p.ProtocolVersion >= statelessProtocol {
			// A client without a handshake names itself in each call
			// (and has no roots that a re-initialize could drop).
			names.name(ctx, req.ClientInfo(), false)
		}
		if err := roots.wait(ctx, req.Session); err != nil {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "error: " + err.Error()}}, IsError: true}, nil
		}
		var params any
		args := map[string]json.RawMessage{}
		if a := req.Params.Arguments; len(a) > 0 && string(a) != "null" {
			if json.Unmarshal(a, &args) != nil {
				args, params = nil, a // not an object: the daemon will say so
			}
		}
		if method == protocol.MethodStats && args != nil {
			// What the kernel enforces of a sandbox is worth a model's
			// asking: it costs a process's start, once per daemon.
			args["sandbox"] = json.RawMessage("true")
		}
		if args != nil {
			renderArgs(method, args, s.Budget)
		}
		if tok := req.Params.GetProgressToken(); tok != nil && args != nil {
			stop := s.relayProgress(ctx, client, req.Session, tok, args)
			defer stop()
		}
		if len(args) > 0 {
			params = args
		}
		raw, content, err := s.call(ctx, client, method, params)
		if err != nil {
			return callError(err)
		}
		res := &sdk.CallToolResult{Content: content}
		if s.Structured {
			res.StructuredContent = raw
		}
		return res, nil
	}
}

// call calls method with params and renders its result: one daemon
// request. A daemon's error is err; so is one in rendering.
func (s *Server) call(ctx context.Context, client *rpc.Client, method string, params any) (json.RawMessage, []sdk.Content, error) {
	var raw json.RawMessage
	if err := client.Call(ctx, method, params, &raw); err != nil {
		return nil, nil, err
	}
	switch method {
	case protocol.MethodRead, protocol.MethodPage:
		raw = wholeWindow(raw)
	case protocol.MethodProcessList:
		// structuredContent must be an object, and the list is an array.
		raw = append(append([]byte(`{"processes":`), raw...), '}')
	}
	content, err := render(method, raw)
	if err != nil {
		s.log.Error("mcp: rendering a result", "method", method, "err", err)
		return nil, nil, fmt.Errorf("mcp: rendering %s: %w", method, err)
	}
	return raw, content, nil
}

// wholeWindow is raw, a window, with every field the tool's outputSchema
// requires: the daemon's short form of an unchanged window
// (protocol.UnchangedWindow) lacks some.
func wholeWindow(raw json.RawMessage) json.RawMessage {
	var w protocol.Window
	if json.Unmarshal(raw, &w) != nil || !w.Unchanged {
		return raw
	}
	if b, err := json.Marshal(&w); err == nil {
		return b
	}
	return raw
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
// notifications/progress. It gives args a workDoneToken, and returns the
// function that stops the relay.
func (s *Server) relayProgress(ctx context.Context, client *rpc.Client, ss *sdk.ServerSession, tok any, args map[string]json.RawMessage) func() {
	wd := fmt.Sprintf("mcp-%d", progressSeq.Add(1))
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
		return func() {}
	}
	args["workDoneToken"], _ = json.Marshal(wd)
	return remove
}

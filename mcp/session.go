package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/rpc"
)

// name makes the MCP client's name (from its initialize) the toold
// session's client name, in init (the params every later initialize of the
// session sends) and, unless the roots sync sends initialize anyway, in a
// re-initialize now: the daemon's log then names the agent, not toold mcp.
func (s *Server) name(ctx context.Context, client *rpc.Client, init map[string]any, ss *sdk.ServerSession) {
	p := ss.InitializeParams()
	if p == nil || p.ClientInfo == nil || p.ClientInfo.Name == "" {
		return
	}
	init["clientInfo"] = map[string]string{"name": p.ClientInfo.Name, "version": p.ClientInfo.Version}
	if clientHasRoots(ss) {
		return // roots.sync sends init
	}
	if err := client.Call(ctx, "initialize", init, nil); err != nil {
		s.log.Warn("mcp: naming the session after its client", "client", p.ClientInfo.Name, "err", err)
	}
}

// sessionInit is a copy of Init for one session, which name may change.
func (s *Server) sessionInit() map[string]any {
	if s.Init == nil {
		return map[string]any{}
	}
	return maps.Clone(s.Init)
}

// quiet is l for the MCP SDK, whose INFO lines (a session's connecting,
// initialized, disconnected, ended: six per session, with an empty
// session_id on stdio) say nothing a user of toold mcp needs: they are
// logged at DEBUG.
func quiet(l *slog.Logger) *slog.Logger {
	return slog.New(demote{l.Handler()})
}

// demote logs INFO records at DEBUG.
type demote struct{ slog.Handler }

func (d demote) Enabled(ctx context.Context, level slog.Level) bool {
	return d.Handler.Enabled(ctx, lower(level))
}

func (d demote) Handle(ctx context.Context, r slog.Record) error {
	r.Level = lower(r.Level)
	return d.Handler.Handle(ctx, r)
}

func (d demote) WithAttrs(attrs []slog.Attr) slog.Handler { return demote{d.Handler.WithAttrs(attrs)} }
func (d demote) WithGroup(name string) slog.Handler       { return demote{d.Handler.WithGroup(name)} }

func lower(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}

// ErrRefused is wrapped by RunRefusing's error: the reason was logged.
var ErrRefused = errors.New("toold mcp refused every tool call")

// RunRefusing serves one MCP session, as Run does, whose every tool call
// fails with why: toold mcp could not start its toold session (a --root
// that does not exist, a sandbox the kernel cannot enforce, a daemon that
// does not answer). A server that exits is shown by an MCP client as
// "failed", its reason in a log few read; a failed tool call reaches the
// model, and through it the user. The initialize's instructions say it
// too. Once the client has gone it returns why, wrapped with ErrRefused,
// or ctx's error.
func (s *Server) RunRefusing(ctx context.Context, in io.ReadCloser, out io.WriteCloser, why error) error {
	s.log.Error("toold mcp cannot serve its tools", "err", why)
	text := fmt.Sprintf("error: toold mcp could not start its session, so no toold tool works: %v. "+
		"This is toold mcp's configuration (its command line in the MCP client's settings), not the call: tell the user.", why)
	srv := sdk.NewServer(&sdk.Implementation{Name: "toold", Version: s.version}, &sdk.ServerOptions{
		Instructions: text,
		Logger:       quiet(s.log),
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	refuse := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: true}, nil
	}
	for _, t := range tools() {
		if !s.Structured {
			t.OutputSchema = nil
		}
		srv.AddTool(t, refuse)
	}
	if err := srv.Run(ctx, &sdk.IOTransport{Reader: in, Writer: out}); ctx.Err() != nil {
		return ctx.Err()
	} else if err != nil {
		s.log.Debug("mcp: serving the refusing session", "err", err)
	}
	return fmt.Errorf("%w: %w", ErrRefused, why)
}

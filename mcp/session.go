package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// namer names a toold session after its MCP client, once: from the
// initialize handshake, or, for a client of the protocol without one
// (2026-07-28, Claude Code's), from the clientInfo its first tool call
// carries in _meta.
type namer struct {
	s      *Server
	client *rpc.Client
	init   map[string]any // the params every later initialize of the session sends
	once   sync.Once
}

// initialized names the session after the client of a handshake; the
// roots sync, when the client has roots, sends the initialize.
func (n *namer) initialized(ctx context.Context, ss *sdk.ServerSession) {
	if p := ss.InitializeParams(); p != nil {
		n.name(ctx, p.ClientInfo, clientHasRoots(ss))
	}
}

// name makes info the toold session's client name, in init and, unless the
// roots sync sends initialize anyway, in a re-initialize now: the daemon's
// log then names the agent, not toold mcp.
func (n *namer) name(ctx context.Context, info *sdk.Implementation, viaRoots bool) {
	if info == nil || info.Name == "" {
		return
	}
	n.once.Do(func() {
		n.init["clientInfo"] = map[string]string{"name": info.Name, "version": info.Version}
		if viaRoots {
			return
		}
		if err := n.client.Call(ctx, "initialize", n.init, nil); err != nil {
			n.s.log.Warn("mcp: naming the session after its client", "client", info.Name, "err", err)
		}
	})
}

// sessionInit is a copy of Init for one session, which name may change,
// with the facts the daemon composes its notices with: toold mcp's model
// calls the methods as tools (process_read), so notices name them so.
func (s *Server) sessionInit() map[string]any {
	init := map[string]any{}
	if s.Init != nil {
		init = maps.Clone(s.Init)
	}
	init["notices"] = protocol.NoticeParams{ToolNames: true}
	return init
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
// fails with why: the daemon refused toold mcp's session (a --root that
// does not exist, a sandbox the kernel cannot enforce). A server that exits is shown by an MCP client as
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
	if err := srv.Run(ctx, answering(in, out)); ctx.Err() != nil {
		return ctx.Err()
	} else if err != nil {
		s.log.Debug("mcp: serving the refusing session", "err", err)
	}
	return fmt.Errorf("%w: %w", ErrRefused, why)
}

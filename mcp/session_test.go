package mcp

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/lifecycle"
)

// The toold session is named after the MCP client (its initialize's
// clientInfo), once at INFO, whether the client has roots (the roots sync
// sends initialize) or not (the server does), or has no handshake at all
// (protocol 2026-07-28, as Claude Code speaks it: the name comes with the
// first tool call).
func TestSessionNamedAfterClient(t *testing.T) {
	t.Parallel()
	// One daemon for the three clients, one after another: each case
	// reads the lines its client's session logged.
	var log testenv.Buffer
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	d, err := lifecycle.New(lifecycle.Options{Version: "test", SpoolRoot: filepath.Join(t.TempDir(), "spool"), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	dm := &daemon{d: d}
	defer d.Close()
	for _, tc := range []struct {
		withRoots bool
		protocol  string // 2026-07-28: no handshake, clientInfo in each request's _meta
	}{{false, "2025-11-25"}, {true, "2025-11-25"}, {false, "2026-07-28"}} {
		withRoots := tc.withRoots
		logged := len(log.String())
		srv := NewServer("test", dm.connect, testLogger(t))
		srv.Init = map[string]any{}
		ctx, cancel := context.WithCancel(context.Background())
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx, inR, outW) }()
		client := sdk.NewClient(&sdk.Implementation{Name: "gemini-cli-mcp-client", Version: "0.61.0"}, nil)
		if withRoots {
			client.AddRoots(&sdk.Root{URI: "file://" + t.TempDir()})
		}
		cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, &sdk.ClientSessionOptions{ProtocolVersion: tc.protocol})
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "stats"})
		if err != nil || res.IsError {
			t.Fatalf("stats: %v %+v", err, res)
		}
		cs.Close()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		cancel()
		dm.conns.Wait() // the daemon's end of the session is done
		got := log.String()[logged:]
		if n := strings.Count(got, "level=INFO msg=\"client initialized\""); n != 1 || !strings.Contains(got, "client=gemini-cli-mcp-client version=0.61.0") {
			t.Errorf("%+v: %d INFO lines of a client, want one naming gemini-cli-mcp-client:\n%s", tc, n, got)
		}
	}
}

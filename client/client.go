package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// Client is a connection to toold: one session. It is safe for concurrent
// use; calls run concurrently on the daemon.
type Client struct {
	conn *rpc.Client
	wait func() error // after the connection closes: the process's end
}

// New starts a client on rwc, a connection to a toold daemon (one JSON
// message per line); it owns rwc.
func New(ctx context.Context, rwc io.ReadWriteCloser) *Client {
	return &Client{conn: rpc.NewClient(ctx, rwc, rpc.FramingLines), wait: func() error { return nil }}
}

// Dial connects to the daemon listening on socket (toold serve --listen).
func Dial(ctx context.Context, socket string) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	return New(ctx, conn), nil
}

// Start runs exe (a toold binary, "toold" to find it on PATH) with args and
// talks to it on its stdin and stdout; its stderr is the caller's. Close
// ends it.
func Start(ctx context.Context, exe string, args ...string) (*Client, error) {
	cmd := exec.Command(exe, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("client: starting %s: %w", exe, err)
	}
	c := New(ctx, pipes{out, in})
	c.wait = cmd.Wait
	return c, nil
}

// Remote is Start with --remote=auto: the session lives on the shared
// daemon of exe's build, which is started when none answers.
func Remote(ctx context.Context, exe string) (*Client, error) {
	return Start(ctx, exe, "--remote=auto")
}

// pipes joins a process's stdout and stdin into one connection. Close
// closes stdin alone: toold answers what is running, exits, and so ends
// stdout, which the reader drains (a forwarder whose stdout is closed
// early would die of a broken pipe).
type pipes struct {
	io.Reader
	w io.WriteCloser
}

func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error                { return p.w.Close() }

// Close ends the session (its running commands are cancelled and its spools
// deleted) and, for a started toold, waits for it to exit.
func (c *Client) Close() error {
	err := c.conn.Close()
	if werr := c.wait(); werr != nil { // a toold whose input ends exits 0
		err = errors.Join(err, fmt.Errorf("client: toold exited: %w", werr))
	}
	return err
}

// call sends method with params and decodes its result into a new R.
func call[R any](ctx context.Context, c *Client, method string, params any) (*R, error) {
	var r R
	if err := c.conn.Call(ctx, method, params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Initialize sets the session's cwd, environment, roots and limits.
func (c *Client) Initialize(ctx context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	return call[protocol.InitializeResult](ctx, c, protocol.MethodInitialize, p)
}

// Read is a window of whole lines of a file.
func (c *Client) Read(ctx context.Context, p *protocol.ReadParams) (*protocol.Window, error) {
	return call[protocol.Window](ctx, c, protocol.MethodRead, p)
}

// ReadBytes is a window of a file by byte offset.
func (c *Client) ReadBytes(ctx context.Context, p *protocol.ReadBytesParams) (*protocol.Window, error) {
	return call[protocol.Window](ctx, c, protocol.MethodReadBytes, p)
}

// Page is a window of a spool of this session's execs.
func (c *Client) Page(ctx context.Context, p *protocol.PageParams) (*protocol.Window, error) {
	return call[protocol.Window](ctx, c, protocol.MethodPage, p)
}

// Exec runs a command and returns its preview; cancelling ctx cancels it.
func (c *Client) Exec(ctx context.Context, p *protocol.ExecParams) (*protocol.ExecResult, error) {
	return call[protocol.ExecResult](ctx, c, protocol.MethodExec, p)
}

// ProcessRead is the output of a background process (an Exec with YieldMs
// or Background) since a cursor, or since the last read.
func (c *Client) ProcessRead(ctx context.Context, p *protocol.ProcessReadParams) (*protocol.ProcessOutput, error) {
	return call[protocol.ProcessOutput](ctx, c, protocol.MethodProcessRead, p)
}

// ProcessWait waits for a background process to exit, print a line that
// matches p.Until.Pattern, go idle, or time out, and returns its new output.
func (c *Client) ProcessWait(ctx context.Context, p *protocol.ProcessWaitParams) (*protocol.ProcessOutput, error) {
	return call[protocol.ProcessOutput](ctx, c, protocol.MethodProcessWait, p)
}

// ProcessWrite writes to a background process's stdin.
func (c *Client) ProcessWrite(ctx context.Context, p *protocol.ProcessWriteParams) (*protocol.ProcessWriteResult, error) {
	return call[protocol.ProcessWriteResult](ctx, c, protocol.MethodProcessWrite, p)
}

// ProcessKill signals a background process's group and returns its state.
func (c *Client) ProcessKill(ctx context.Context, p *protocol.ProcessKillParams) (*protocol.ProcessInfo, error) {
	return call[protocol.ProcessInfo](ctx, c, protocol.MethodProcessKill, p)
}

// ProcessList is the session's background processes, running or exited.
func (c *Client) ProcessList(ctx context.Context) ([]protocol.ProcessInfo, error) {
	r, err := call[[]protocol.ProcessInfo](ctx, c, protocol.MethodProcessList, nil)
	if err != nil {
		return nil, err
	}
	return *r, nil
}

// Grep searches a file, a tree or a spool for lines that match p.Pattern.
func (c *Client) Grep(ctx context.Context, p *protocol.GrepParams) (*protocol.GrepResult, error) {
	return call[protocol.GrepResult](ctx, c, protocol.MethodGrep, p)
}

// Find lists the paths under p.Path that match a glob.
func (c *Client) Find(ctx context.Context, p *protocol.FindParams) (*protocol.EntriesResult, error) {
	return call[protocol.EntriesResult](ctx, c, protocol.MethodFind, p)
}

// Ls lists a directory.
func (c *Client) Ls(ctx context.Context, p *protocol.LsParams) (*protocol.EntriesResult, error) {
	return call[protocol.EntriesResult](ctx, c, protocol.MethodLs, p)
}

// Stats is the daemon's state.
func (c *Client) Stats(ctx context.Context) (*protocol.Stats, error) {
	return call[protocol.Stats](ctx, c, protocol.MethodStats, nil)
}

// N is a count or size param: protocol.ReadParams{Path: p, Limit: client.N(10)}.
func N(n int64) *protocol.Num {
	v := protocol.Num(n)
	return &v
}

// S is an optional string param: protocol.ExecParams{Command: client.S("make")}.
func S(s string) *string { return &s }

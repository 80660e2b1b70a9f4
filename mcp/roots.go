package mcp

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/beneath"
	"github.com/toold/toold/rpc"
)

// roots keeps a daemon session's roots in step with those its MCP client
// announces (roots/list, and again on notifications/roots/list_changed).
// Until the first answer is in, tool calls wait: a read must never run
// with no roots because the client's have not arrived yet.
type roots struct {
	client *rpc.Client
	init   map[string]any // initialize's params from the command line
	fixed  []string       // the --root directories: client roots only narrow them

	once  sync.Once
	ready chan struct{} // closed once the first sync is done

	mu  sync.Mutex // one sync at a time, in order
	err error      // the last sync's failure, reported to tool calls
}

func newRoots(client *rpc.Client, init map[string]any) *roots {
	r := &roots{client: client, init: init, ready: make(chan struct{})}
	if fixed, ok := init["roots"].([]string); ok {
		r.fixed = fixed
	}
	return r
}

// initialized starts the first sync when the client has roots.
func (r *roots) initialized(ctx context.Context, ss *sdk.ServerSession) {
	if clientHasRoots(ss) {
		go r.sync(ctx, ss) // ListRoots needs the session's read loop, which calls us
	}
}

// statelessProtocol is the first MCP version without the initialize
// handshake (SEP-2575); its sessions' params come with each request.
const statelessProtocol = "2026-07-28"

// clientHasRoots reports whether the client announced the roots capability
// in the initialize handshake. A session of protocol 2026-07-28 or later has
// no handshake (and roots are deprecated there): the command line's roots
// stand.
func clientHasRoots(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.ProtocolVersion >= statelessProtocol {
		return false
	}
	return p.Capabilities.RootsV2 != nil || p.Capabilities.Roots.ListChanged //nolint:staticcheck // older clients fill in only Roots
}

// sync asks the client for its roots and makes them the session's.
func (r *roots) sync(ctx context.Context, ss *sdk.ServerSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.once.Do(func() { close(r.ready) })
	r.err = r.apply(ctx, ss)
}

func (r *roots) apply(ctx context.Context, ss *sdk.ServerSession) error {
	res, err := ss.ListRoots(ctx, &sdk.ListRootsParams{})
	if err != nil {
		return fmt.Errorf("asking the client for its roots: %w", err)
	}
	dirs, err := rootDirs(res.Roots)
	if err != nil {
		return err
	}
	dirs = narrow(r.fixed, dirs)
	params := make(map[string]any, len(r.init)+1)
	for k, v := range r.init {
		params[k] = v
	}
	if len(dirs) > 0 {
		params["roots"] = dirs
	}
	if err := r.client.Call(ctx, "initialize", params, nil); err != nil {
		return fmt.Errorf("setting the client's roots %v: %w", dirs, err)
	}
	return nil
}

// wait returns when the client's roots are the session's, with the last
// sync's error; at once for a client without roots.
func (r *roots) wait(ctx context.Context, ss *sdk.ServerSession) error {
	if !clientHasRoots(ss) {
		return nil
	}
	select {
	case <-r.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// rootDirs turns file:// URIs into directories.
func rootDirs(rs []*sdk.Root) ([]string, error) {
	var dirs []string
	for _, root := range rs {
		u, err := url.Parse(root.URI)
		if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || !filepath.IsAbs(u.Path) {
			return nil, fmt.Errorf("the client's root %q is not a file:// URI of an absolute path", root.URI)
		}
		dirs = append(dirs, filepath.Clean(u.Path))
	}
	return dirs, nil
}

// narrow returns the client's roots that lie within the command line's
// (all of them when there are none), each resolved once (symlinks
// followed) and compared as resolved: a client's root that is a symlink
// inside --root to a directory outside it lies outside, and what the
// daemon is given is the resolved path, not the link it could follow
// elsewhere later. When none lies within, the command line's stand: a
// client can narrow what the user allowed, never widen it. A client's
// root that cannot be resolved (missing) is left out.
func narrow(fixed, client []string) []string {
	if len(fixed) == 0 {
		return client
	}
	var bounds []string
	for _, f := range fixed {
		if real, err := resolveDir(f); err == nil {
			bounds = append(bounds, real)
		}
	}
	var in []string
	for _, c := range client {
		if real, err := resolveDir(c); err == nil && beneath.Any(real, bounds) {
			in = append(in, real)
		}
	}
	if len(in) == 0 {
		return fixed
	}
	return in
}

// resolveDir makes dir absolute and follows its symlinks.
func resolveDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

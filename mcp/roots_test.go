package mcp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/testenv"
)

// openWithRoots is open with a client that announces roots (file:// URIs
// of dirs), or none at all when caps is false.
func openWithRoots(t *testing.T, srv *Server, caps bool, dirs ...string) (*session, *sdk.Client) {
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{done: make(chan error, 1)}
	go func() { s.done <- srv.Run(ctx, inR, outW) }()
	opts := &sdk.ClientOptions{}
	if !caps {
		opts.Capabilities = &sdk.ClientCapabilities{}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts)
	for _, d := range dirs {
		client.AddRoots(&sdk.Root{URI: "file://" + d})
	}
	// Roots come with the initialize handshake, which 2026-07-28 drops.
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s.ClientSession = cs
	t.Cleanup(func() {
		s.close(t)
		cancel()
	})
	return s, client
}

// readable reports whether the session may read path: its content, or
// -32002 (outside the roots); anything else fails the test.
func readable(t *testing.T, s *session, path string) bool {
	t.Helper()
	text, res := s.call(t, "read", map[string]any{"path": path})
	switch {
	case !res.IsError:
		return true
	case strings.HasPrefix(text, "error -32002: "):
		return false
	}
	t.Fatalf("read %s: %s", path, text)
	return false
}

func TestClientRoots(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	a, b, sub := filepath.Join(base, "a"), filepath.Join(base, "b"), filepath.Join(base, "a", "sub")
	for _, d := range []string{a, b, sub} {
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "f.txt"), []byte(d+"\n"), 0o644)
	}
	af, bf, subf := filepath.Join(a, "f.txt"), filepath.Join(b, "f.txt"), filepath.Join(sub, "f.txt")
	tests := []struct {
		name        string
		flagRoots   []string // toold mcp --root
		caps        bool     // the client has the roots capability
		clientRoots []string
		readable    map[string]bool
	}{
		{"client roots", nil, true, []string{a}, map[string]bool{af: true, subf: true, bf: false}},
		{"two client roots", nil, true, []string{a, b}, map[string]bool{af: true, bf: true}},
		{"no roots capability", nil, false, nil, map[string]bool{af: true, bf: true}},
		{"an empty list", nil, true, nil, map[string]bool{af: true, bf: true}},
		{"client narrows --root", []string{a}, true, []string{sub}, map[string]bool{subf: true, af: false, bf: false}},
		{"client cannot widen --root", []string{a}, true, []string{b}, map[string]bool{af: true, bf: false}},
		{"--root alone", []string{a}, false, nil, map[string]bool{af: true, bf: false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dm := newDaemon(t)
			init := map[string]any{}
			if tt.flagRoots != nil {
				init["roots"] = tt.flagRoots
			}
			connect := dm.connect
			if len(init) > 0 {
				connect = dm.connectInit(init)
			}
			srv := NewServer("test", connect, testLogger(t))
			srv.Init = init
			s, _ := openWithRoots(t, srv, tt.caps, tt.clientRoots...)
			for path, want := range tt.readable {
				if got := readable(t, s, path); got != want {
					t.Errorf("read %s: readable %v, want %v", path, got, want)
				}
			}
		})
	}
}

// notifications/roots/list_changed: the session's roots follow the client's.
func TestClientRootsChange(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	af, bf := filepath.Join(a, "f"), filepath.Join(b, "f")
	os.WriteFile(af, []byte("a\n"), 0o644)
	os.WriteFile(bf, []byte("b\n"), 0o644)
	dm := newDaemon(t)
	s, client := openWithRoots(t, NewServer("test", dm.connect, testLogger(t)), true, a)
	if !readable(t, s, af) || readable(t, s, bf) {
		t.Fatal("roots [a]: a must be readable, b not")
	}
	client.AddRoots(&sdk.Root{URI: "file://" + b})
	client.RemoveRoots("file://" + a)
	testenv.WaitFor(t, 10*time.Second, "the roots to follow the client's change to [b]", func() bool {
		return !readable(t, s, af) && readable(t, s, bf)
	})
}

// A root that is not a file:// URI fails the tool calls, never widens them.
func TestClientRootsBad(t *testing.T) {
	t.Parallel()
	dm := newDaemon(t)
	srv := NewServer("test", dm.connect, testLogger(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, inR, outW) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	client.AddRoots(&sdk.Root{URI: "https://example.com/"})
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	s := &session{ClientSession: cs, done: done}
	defer s.close(t)
	text, res := s.call(t, "read", map[string]any{"path": "/etc/hostname"})
	if !res.IsError || !strings.Contains(text, `"https://example.com/" is not a file:// URI`) {
		t.Errorf("read with a bad root: %q", text)
	}
}

// TestNarrow: the client's roots are resolved once and compared, as
// resolved, with the command line's, also resolved: a link inside --root
// that leads out does not widen the roots, one that leads in narrows them
// to its target, and a --root that is a link holds its target's dirs.
func TestNarrow(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, ab, c, ac := filepath.Join(base, "a"), filepath.Join(base, "a", "b"), filepath.Join(base, "c"), filepath.Join(base, "ac")
	for _, d := range []string{ab, c, ac} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"a/out": c, "a/in": ab, "la": a, "a/b/up": ".."} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	j := func(p string) string { return filepath.Join(base, p) }
	tests := []struct{ fixed, client, want []string }{
		{nil, []string{a}, []string{a}},
		{nil, nil, nil},
		{[]string{a}, nil, []string{a}},
		{[]string{a}, []string{ab, c, ac}, []string{ab}},
		{[]string{a, c}, []string{c, a}, []string{c, a}},
		{[]string{a + "/"}, []string{ab}, []string{ab}},
		{[]string{a}, []string{"/"}, []string{a}},
		{[]string{a}, []string{j("a/out")}, []string{a}},      // a link out: outside
		{[]string{a}, []string{j("a/out"), ab}, []string{ab}}, // only the one inside
		{[]string{a}, []string{j("a/in")}, []string{ab}},      // a link in: its target
		{[]string{a}, []string{j("a/b/up/out")}, []string{a}}, // a chain out
		{[]string{j("la")}, []string{ab}, []string{ab}},       // --root a link
		{[]string{a}, []string{j("a/missing")}, []string{a}},  // cannot be resolved
	}
	for _, tt := range tests {
		if got := narrow(tt.fixed, tt.client); !slices.Equal(got, tt.want) {
			t.Errorf("narrow(%v, %v) = %v, want %v", tt.fixed, tt.client, got, tt.want)
		}
	}
}

// A client of the stateless protocol (no initialize handshake, roots
// deprecated) keeps the command line's roots, and its calls do not wait.
func TestClientRootsStateless(t *testing.T) {
	t.Parallel()
	dm := newDaemon(t)
	a := t.TempDir()
	init := map[string]any{"roots": []string{a}}
	srv := NewServer("test", dm.connectInit(init), testLogger(t))
	srv.Init = init
	s := open(t, srv) // the SDK's latest protocol
	if v := s.InitializeResult().ProtocolVersion; v < statelessProtocol {
		t.Skipf("the SDK negotiated %s", v)
	}
	os.WriteFile(filepath.Join(a, "f"), []byte("x\n"), 0o644)
	if !readable(t, s, filepath.Join(a, "f")) || readable(t, s, "/etc/hostname") {
		t.Error("a stateless session must keep the --root roots")
	}
}

// A model's misspelt param reaches the daemon as it is, and the notice it
// reads names it and the param it meant.
func TestUnknownParamNotice(t *testing.T) {
	t.Parallel()
	s, _ := start(t)
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("a\nb\nc\n"), 0o644)
	text, res := s.call(t, "read", map[string]any{"path": path, "ofset": 2, "limit": 1})
	if res.IsError || text != "     1\ta\n[Unknown param ignored: ofset (did you mean offset?)] [Showing lines 1-1 of 3. Use offset=2 to continue]" {
		t.Errorf("read with ofset: %q", text)
	}
}

package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// binPath is the built toold, shared with the other packages' tests.
var binPath string

func TestMain(m *testing.M) {
	var err error
	if binPath, err = testenv.Toold(); err != nil {
		fmt.Fprintf(os.Stderr, "building toold: %v\n", err)
		os.Exit(1)
	}
	testenv.Exit(m.Run())
}

// way is a way to reach toold.
type way struct {
	name    string
	connect func(t *testing.T, ctx context.Context) (*Client, error)
}

// parallel makes a subtest of way w run in parallel with the others, but
// for remote=auto's, whose t.Setenv (the daemon's socket is found through
// the environment) must not: it runs first, alone, and the others, paused
// meanwhile, together once it is done.
func (w way) parallel(t *testing.T) {
	if w.name != "remote=auto" {
		t.Parallel()
	}
}

// ways are the three ways to reach toold, each with a fresh daemon.
var ways = []way{
	{"stdio", func(t *testing.T, ctx context.Context) (*Client, error) {
		return Start(ctx, binPath, "--spool-root", filepath.Join(t.TempDir(), "spool"))
	}},
	{"remote=auto", func(t *testing.T, ctx context.Context) (*Client, error) {
		t.Setenv("TOOLD_RUNTIME_DIR", t.TempDir())
		t.Cleanup(func() { exec.Command(binPath, "stop").Run() })
		return Remote(ctx, binPath)
	}},
	{"socket", func(t *testing.T, ctx context.Context) (*Client, error) {
		sock := filepath.Join(t.TempDir(), "private", "toold.sock")
		d := exec.Command(binPath, "serve", "--listen", sock, "--spool-root", filepath.Join(t.TempDir(), "spool"))
		if err := d.Start(); err != nil {
			return nil, err
		}
		t.Cleanup(func() { d.Process.Kill(); d.Wait() })
		var c *Client
		var err error
		testenv.Until(10*time.Second, func() bool { c, err = Dial(ctx, sock); return err == nil })
		return c, err
	}},
}

func TestClient(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	os.WriteFile(file, []byte("one\ntwo\nthree\n"), 0o644)
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			w.parallel(t)
			ctx := context.Background()
			c, err := w.connect(t, ctx)
			if err != nil {
				t.Fatal(err)
			}
			init, err := c.Initialize(ctx, &protocol.InitializeParams{Cwd: dir, Roots: []string{dir}})
			if err != nil || init.ServerInfo.Name != protocol.ServerName || init.Limits.Read.Limit != protocol.DefaultLimits.Read.Limit {
				t.Fatalf("Initialize: %+v %v", init, err)
			}
			win, err := c.Read(ctx, &protocol.ReadParams{Path: "f.txt", Offset: N(2), Limit: N(1)})
			if err != nil || win.Content != "two\n" || win.Path != file || win.Next == nil || *win.Next.Offset != 3 {
				t.Errorf("Read: %+v %v", win, err)
			}
			win, err = c.ReadBytes(ctx, &protocol.ReadBytesParams{Path: file, StartByte: N(4), MaxBytes: N(6)})
			if err != nil || win.Content != "two\n" || win.StartByte != 4 {
				t.Errorf("ReadBytes: %+v %v", win, err)
			}
			ex, err := c.Exec(ctx, &protocol.ExecParams{Command: S("seq 1 1000"), OutputParams: protocol.OutputParams{MaxLines: N(4)}})
			if err != nil || ex.ExitCode == nil || *ex.ExitCode != 0 || ex.Stdout.Spool == nil || ex.Stdout.Omitted == nil {
				t.Fatalf("Exec: %+v %v", ex, err)
			}
			page, err := c.Page(ctx, &protocol.PageParams{Spool: ex.Stdout.Spool.ID, ReadParams: protocol.ReadParams{Offset: N(ex.Stdout.Omitted.FromLine), Limit: N(2)}})
			if err != nil || page.Content != "3\n4\n" {
				t.Errorf("Page: %+v %v", page, err)
			}
			st, err := c.Stats(ctx)
			if err != nil || st.Sessions != 1 {
				t.Errorf("Stats: %+v %v", st, err)
			}
			// The daemon's errors come as *rpc.Error with the protocol's codes.
			_, err = c.Read(ctx, &protocol.ReadParams{Path: "missing.txt"})
			var re *rpc.Error
			if !errors.As(err, &re) || re.Code != protocol.CodeNoSuchFile {
				t.Errorf("Read of a missing file: %v", err)
			}
			_, err = c.Read(ctx, &protocol.ReadParams{Path: "/etc/hostname"})
			if !errors.As(err, &re) || re.Code != protocol.CodeAccessDenied {
				t.Errorf("Read outside the roots: %v", err)
			}
			// Cancelling a call cancels the command.
			cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			if _, err := c.Exec(cctx, &protocol.ExecParams{Command: S("sleep 30")}); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 10*time.Second {
				t.Errorf("a cancelled Exec: %v after %v", err, time.Since(start))
			}
			spool := ex.Stdout.Spool.Path
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			// Its session ends with it: the spool is gone.
			testenv.WaitFor(t, 10*time.Second, "the spool "+spool+" to go after Close", func() bool {
				_, err := os.Stat(spool)
				return err != nil
			})
		})
	}
}

func TestConnectErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Dial(ctx, filepath.Join(t.TempDir(), "none.sock")); err == nil {
		t.Error("Dial of no socket: no error")
	}
	if _, err := Start(ctx, filepath.Join(t.TempDir(), "no-toold")); err == nil || !strings.Contains(err.Error(), "starting") {
		t.Errorf("Start of no binary: %v", err)
	}
}

// TestSearchAndProcesses: the typed calls of grep, find, ls and background
// processes, over each way to reach toold with TOOLD_LONG=1. The quick run
// takes stdio's alone: the calls are the same code whatever carries them,
// TestClient proves each way carries calls, and each way's daemon was a
// third of the test's CPU.
func TestSearchAndProcesses(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n// TODO: one\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "b.txt"), []byte("nothing\nTODO: two\n"), 0o644)
	for _, w := range testenv.Size(ways[:1], ways) {
		t.Run(w.name, func(t *testing.T) {
			w.parallel(t)
			ctx := context.Background()
			c, err := w.connect(t, ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Initialize(ctx, &protocol.InitializeParams{Cwd: dir, Roots: []string{dir}}); err != nil {
				t.Fatal(err)
			}
			g, err := c.Grep(ctx, &protocol.GrepParams{Pattern: "TODO: (one|two)"})
			if err != nil || g.TotalMatches != 2 || len(g.Files) != 2 || g.Files[1].Path != "sub/b.txt" || g.Files[1].Matches[0].Line != 2 {
				t.Errorf("Grep: %+v %v", g, err)
			}
			f, err := c.Find(ctx, &protocol.FindParams{Pattern: "**/*.txt"})
			if err != nil || strings.Join(f.Entries, ",") != "sub/b.txt" {
				t.Errorf("Find: %+v %v", f, err)
			}
			l, err := c.Ls(ctx, &protocol.LsParams{})
			if err != nil || strings.Join(l.Entries, ",") != "a.go,sub/" {
				t.Errorf("Ls: %+v %v", l, err)
			}
			// A command that waits for a line on its stdin, then prints it.
			ex, err := c.Exec(ctx, &protocol.ExecParams{Command: S("echo ready; read x; echo got $x"), Background: true})
			if err != nil || ex.Process == nil {
				t.Fatalf("Exec in the background: %+v %v", ex, err)
			}
			id := *ex.Process
			if ps, err := c.ProcessList(ctx); err != nil || len(ps) != 1 || ps[0].ID != id || !ps[0].Running {
				t.Errorf("ProcessList: %+v %v", ps, err)
			}
			wr, err := c.ProcessWrite(ctx, &protocol.ProcessWriteParams{ID: id, Stdin: "hello\n"})
			if err != nil || wr.Written != 6 {
				t.Errorf("ProcessWrite: %+v %v", wr, err)
			}
			out, err := c.ProcessWait(ctx, &protocol.ProcessWaitParams{ID: id, TimeoutMs: N(10_000)})
			if err != nil || out.Reason != protocol.ReasonExit || out.ExitCode == nil || *out.ExitCode != 0 {
				t.Fatalf("ProcessWait: %+v %v", out, err)
			}
			all, err := c.ProcessRead(ctx, &protocol.ProcessReadParams{ID: id, Since: S("0:0")})
			if err != nil || all.Stdout.Head != "ready\ngot hello\n" || all.Running {
				t.Errorf("ProcessRead from the start: %+v %v", all, err)
			}
			// A second, killed while it runs.
			ex, err = c.Exec(ctx, &protocol.ExecParams{Command: S("sleep 30"), Background: true})
			if err != nil || ex.Process == nil {
				t.Fatalf("Exec sleep: %+v %v", ex, err)
			}
			k, err := c.ProcessKill(ctx, &protocol.ProcessKillParams{ID: *ex.Process, Signal: new(protocol.SignalParam("KILL"))})
			if err != nil || k.ID != *ex.Process {
				t.Errorf("ProcessKill: %+v %v", k, err)
			}
			_, err = c.ProcessRead(ctx, &protocol.ProcessReadParams{ID: "p-none"})
			var re *rpc.Error
			if !errors.As(err, &re) || re.Code != protocol.CodeNoSuchFile {
				t.Errorf("ProcessRead of no process: %v", err)
			}
		})
	}
}

// TestBinarySources: this package's cached result depends on the sources
// of the daemon it drives, not only on the packages it imports.
func TestBinarySources(t *testing.T) { testenv.ConsultSources(t) }

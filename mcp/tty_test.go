package mcp

import (
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTTYPromptOverMCP: the exec tool takes tty; a command that waits for
// input comes back as text that shows the prompt and names process_write
// and the process id; progress notifications flow while exec and then
// process_wait wait; the answer reaches the command.
func TestTTYPromptOverMCP(t *testing.T) {
	t.Parallel()
	dm := newDaemon(t)
	srv := NewServer("test", dm.connect, testLogger(t))
	var mu sync.Mutex
	progress := map[any]int{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, inR, outW) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			progress[req.Params.ProgressToken]++
			mu.Unlock()
		},
	})
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); <-done }()
	text := func(name string, args map[string]any, token string) string {
		t.Helper()
		params := &sdk.CallToolParams{Name: name, Arguments: args}
		if token != "" {
			params.SetProgressToken(token)
		}
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return res.Content[0].(*sdk.TextContent).Text
	}

	out := text("exec", map[string]any{"tty": true,
		"command": `for i in 1 2 3 4 5; do echo "step $i"; sleep 0.4; done; read -p "Name: " x; sleep 2; read -p "Again: " y; echo "hi $x $y"`}, "exec")
	m := regexp.MustCompile(`^waiting for input as process (p[0-9a-f]+)\n`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, `its prompt: "Name: "`) || !strings.Contains(out, "process_write id="+m[1]) || !strings.Contains(out, "step 5") {
		t.Fatalf("exec's text:\n%s", out)
	}
	id := m[1]
	if w := text("process_write", map[string]any{"id": id, "stdin": "ann\n"}, ""); !strings.Contains(w, "Wrote 4 bytes") {
		t.Fatalf("write: %s", w)
	}
	out = text("process_wait", map[string]any{"id": id, "timeoutMs": 20000}, "wait")
	if !strings.HasPrefix(out, "process "+id+" waiting for input (wait ended: input)") || !strings.Contains(out, `"Again: "`) {
		t.Fatalf("wait's text:\n%s", out)
	}
	text("process_write", map[string]any{"id": id, "stdin": "bo\n"}, "")
	if out = text("process_wait", map[string]any{"id": id, "timeoutMs": 20000}, ""); !strings.Contains(out, "hi ann bo") {
		t.Fatalf("the end:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if progress["exec"] < 2 || progress["wait"] < 1 {
		t.Errorf("progress notifications: %v", progress)
	}
}

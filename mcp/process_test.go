package mcp

import (
	"bufio"
	"context"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// TestProgress: a client that gives a progressToken gets
// notifications/progress while a command runs, before its result; one that
// gives none gets none.
func TestProgress(t *testing.T) {
	t.Parallel() // waits on a command that sleeps, on a daemon of its own
	dm := newDaemon(t)
	srv := NewServer("test", dm.connect, testLogger(t))
	var mu sync.Mutex
	var got []*sdk.ProgressNotificationParams
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, inR, outW) }()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
		},
	})
	// The server's messages as it wrote them: the client hands
	// notifications to a queue of their own and a call's result straight
	// to its caller, so what it receives after a result may have been
	// written before it.
	var wire []string
	wireR, wireW := io.Pipe()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			mu.Lock()
			wire = append(wire, sc.Text())
			mu.Unlock()
			wireW.Write(append(sc.Bytes(), '\n'))
		}
		wireW.CloseWithError(sc.Err())
	}()
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: wireR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); <-done }()

	// The call without a token runs beside the one with: it must get none,
	// and a notification of its would carry no token, or not "p-1".
	untokened := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "sleep 0.8"}})
		untokened <- err
	}()
	params := &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": `for i in $(seq 1 8); do echo "step $i"; sleep 0.2; done`}}
	params.SetProgressToken("p-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("exec: %v %+v", err, res)
	}
	// Nothing written after the result, of either call.
	if err := <-untokened; err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	// The result's line, not a notification's: a progress message names
	// the last line too ("stdout 8 lines ...: step 8").
	result := slices.IndexFunc(wire, func(l string) bool {
		return strings.Contains(l, "step 8") && !strings.Contains(l, "notifications/progress")
	})
	if result < 0 {
		t.Fatal("no result on the wire")
	}
	for i, l := range wire {
		if strings.Contains(l, "notifications/progress") && i > result {
			t.Errorf("a progress notification written after the result: %s", l)
		}
	}
	if len(got) < 3 {
		t.Fatalf("%d progress notifications, want >= 3", len(got))
	}
	for i, p := range got {
		if p.ProgressToken != "p-1" || (i > 0 && p.Progress <= got[i-1].Progress) || !strings.Contains(p.Message, "stdout") {
			t.Fatalf("notification %d: %+v", i, p)
		}
	}
}

// TestProcessTools: a server started in the background, waited for with a
// pattern, written to, listed and killed, through the tools a model sees.
func TestProcessTools(t *testing.T) {
	t.Parallel()
	s, _ := startStructured(t)
	exText, res := s.call(t, "exec", map[string]any{
		"command":    `echo booting; sleep 0.2; echo "ready on port 4000"; while read l; do echo "echo: $l"; done`,
		"background": true})
	var ex struct{ Process *string }
	structured(t, res, &ex)
	// Notices name the tools, not the JSON-RPC methods.
	if ex.Process == nil || !strings.Contains(exText, "still running as process "+*ex.Process) || !strings.Contains(exText, "process_wait") || strings.Contains(exText, "process/") {
		t.Fatalf("exec: %q", exText)
	}
	id := *ex.Process
	if text, _ := s.call(t, "process_list", nil); !strings.HasPrefix(text, id+"  running  started ") || !strings.HasSuffix(text, "do echo \"echo: $l\"; done") {
		t.Fatalf("list, as text: %q", text)
	}
	text, _ := s.call(t, "process_wait", map[string]any{"id": id, "until": map[string]any{"pattern": `ready on port \d+`}})
	// It reads its stdin after the line: it may be seen waiting for
	// input by the time the wait ends on the pattern. On a loaded machine
	// exec's own reply may already have shown the line (the wait matches
	// from where the last read ended): the wait then ends on the input.
	onInput := strings.Contains(exText, "ready on port 4000") && strings.HasPrefix(text, "process "+id+" waiting for input (wait ended: input)")
	ended := strings.HasPrefix(text, "process "+id+" running (wait ended: pattern)") ||
		strings.HasPrefix(text, "process "+id+" waiting for input (wait ended: pattern)")
	if !onInput && (!ended || !strings.Contains(text, "ready on port 4000") ||
		!strings.Contains(text, "process_read or process_wait again goes on from cursor=")) || strings.Contains(text, "process/") {
		t.Fatalf("wait: %q (exec said %q)", text, exText)
	}
	s.call(t, "process_write", map[string]any{"id": id, "stdin": "hello\n"})
	text, _ = s.call(t, "process_wait", map[string]any{"id": id, "until": map[string]any{"pattern": "^echo: hello$"}})
	if !strings.Contains(text, "echo: hello") {
		t.Fatalf("after write: %q", text)
	}
	text, res = s.call(t, "process_list", nil)
	var list struct{ Processes []struct{ ID string } }
	structured(t, res, &list)
	if len(list.Processes) != 1 || list.Processes[0].ID != id || !strings.Contains(text, id) {
		t.Fatalf("list: %q", text)
	}
	text, _ = s.call(t, "process_kill", map[string]any{"id": id})
	if !strings.Contains(text, "SIGTERM") {
		t.Fatalf("kill: %q", text)
	}
	text, res = s.call(t, "process_read", map[string]any{"id": "nope"})
	if !res.IsError || !strings.Contains(text, "no such process") {
		t.Fatalf("unknown id: %q", text)
	}
}

// TestProgressMethodName: rpc sends progress under the name protocol gives.
func TestProgressMethodName(t *testing.T) {
	t.Parallel()
	if rpc.ProgressMethod != protocol.MethodProgress {
		t.Fatalf("rpc sends %q, protocol names %q", rpc.ProgressMethod, protocol.MethodProgress)
	}
}

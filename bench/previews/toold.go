package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/methods"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/spool"
)

// The daemon's own service, in process: exec runs `cat` of each output.
var (
	svc     *methods.Service
	session *methods.Session
	tmp     string
)

func startToold() error {
	var err error
	if tmp, err = os.MkdirTemp("", "previews-"); err != nil {
		return err
	}
	files, err := fileindex.New(fileindex.Options{})
	if err != nil {
		return err
	}
	spools, err := spool.NewManager(filepath.Join(tmp, "spool"))
	if err != nil {
		return err
	}
	dir, err := spools.Open("bench")
	if err != nil {
		return err
	}
	svc = &methods.Service{Files: files, Runner: exec.NewRunner(nil), Spools: spools}
	session = &methods.Session{ID: "bench", Spool: dir, Settings: &methods.Settings{Cwd: tmp,
		Env: map[string]string{"PATH": os.Getenv("PATH")}, Limits: protocol.DefaultLimits}}
	return nil
}

func stopToold() {
	svc.Runner.Close()
	svc.Spools.Close()
	svc.Files.Close()
	os.RemoveAll(tmp)
}

// toold is what exec shows of `cat` of out at maxBytes (0: the default):
// head, the highlights and tail, and how many highlights a clean run must
// not have: those of reason error, warning or exit, and one more when
// those of reason rare pass RareBytes.
func toold(out []byte, maxBytes int) ([]byte, int) {
	path := filepath.Join(tmp, "output")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		panic(err)
	}
	params := map[string]any{"argv": []string{"cat", path}}
	if maxBytes > 0 {
		params["maxBytes"] = maxBytes
	}
	b, _ := json.Marshal(params)
	res, err := svc.Exec(context.Background(), session, b)
	if err != nil {
		panic(fmt.Sprintf("exec: %v", err))
	}
	j, _ := json.Marshal(res)
	var r protocol.ExecResult
	if err := json.Unmarshal(j, &r); err != nil {
		panic(err)
	}
	shown := []byte(r.Stdout.Head)
	bad, rare := 0, 0
	for _, h := range r.Stdout.Highlights {
		shown = append(shown, h.Text...)
		if h.Reason == protocol.HighlightRare {
			rare += len(h.Text)
		} else {
			bad++
		}
	}
	if rare > protocol.RareBytes {
		bad++
	}
	shown = append(shown, r.Stdout.Tail...)
	for _, k := range r.Stdout.Kinds {
		shown = append(shown, k.Text+"\n"...)
	}
	return shown, bad
}

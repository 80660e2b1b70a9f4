package main

import (
	"encoding/json"
	"testing"
)

// progressNotes returns the $/progress values for token that came so far.
func (p *peer) progressNotes(token string) []json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []json.RawMessage
	for _, m := range p.notes {
		var pp struct {
			Token json.RawMessage `json:"token"`
			Value json.RawMessage `json:"value"`
		}
		if m.Method == "$/progress" && json.Unmarshal(m.Params, &pp) == nil && string(pp.Token) == token {
			out = append(out, pp.Value)
		}
	}
	return out
}

// TestExecProgress: a command that prints a line every 200 ms for 3 s gives
// at least 5 progress notifications before its reply (in the mode that runs
// whole tables; in every mode with TOOLD_LONG=1); a silent one of 1.2 s
// gives some, in every mode and framing; without a token none come.
func TestExecProgress(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		if wholeTable(t) {
			execProgressLines(t, p)
		}
		p.mustCall("exec", map[string]any{"command": "sleep 1.2", "workDoneToken": 42}, nil)
		if n := len(p.progressNotes(`42`)); n < 2 {
			t.Fatalf("a silent command gave %d notifications: elapsed time must still be reported", n)
		}
		p.mustCall("exec", map[string]any{"command": "sleep 1.2"}, nil)
		p.mu.Lock()
		n := len(p.notes)
		p.mu.Unlock()
		if got := len(p.progressNotes(`"build-1"`)) + len(p.progressNotes(`42`)); got != n {
			t.Fatalf("%d notifications for no token", n-got)
		}
	})
}

// execProgressLines: a command that prints a line every 200 ms for 3 s
// gives at least 5 notifications, the last with its lines and elapsed time.
func execProgressLines(t *testing.T, p *peer) {
	t.Helper()
	cmd := `for i in $(seq 1 15); do echo "step $i"; sleep 0.2; done`
	var res struct {
		ExitCode *int `json:"exitCode"`
		Stdout   struct {
			TotalLines int `json:"totalLines"`
		} `json:"stdout"`
	}
	p.mustCall("exec", map[string]any{"command": cmd, "workDoneToken": "build-1"}, &res)
	notes := p.progressNotes(`"build-1"`)
	if len(notes) < 5 || res.ExitCode == nil || *res.ExitCode != 0 || res.Stdout.TotalLines != 15 {
		t.Fatalf("%d notifications before the reply (want >= 5), result %+v", len(notes), res)
	}
	var last struct {
		Kind      string `json:"kind"`
		ElapsedMs int64  `json:"elapsedMs"`
		Stdout    struct{ Lines, Bytes int64 }
		LastLine  string `json:"lastLine"`
	}
	if err := json.Unmarshal(notes[len(notes)-1], &last); err != nil {
		t.Fatal(err)
	}
	if last.Kind != "exec" || last.ElapsedMs < 2000 || last.Stdout.Lines < 10 || last.LastLine == "" {
		t.Fatalf("last progress %s", notes[len(notes)-1])
	}
}

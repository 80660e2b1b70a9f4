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
// gives some, in every mode and framing; without a token none come. The
// three run at once, each with a token of its own (none for the last): the
// case waits 3 s, not 5.4.
func TestExecProgress(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		var lines chan message
		if wholeTable(t) {
			_, lines = p.start("exec", map[string]any{"command": progressLinesCommand, "workDoneToken": "build-1"})
		}
		_, silent := p.start("exec", map[string]any{"command": "sleep 1.2", "workDoneToken": 42})
		_, untracked := p.start("exec", map[string]any{"command": "sleep 1.2"})
		if m := p.await(silent); m.Error != nil {
			t.Fatalf("sleep 1.2: %v", m.Error)
		}
		if n := len(p.progressNotes(`42`)); n < 2 {
			t.Fatalf("a silent command gave %d notifications: elapsed time must still be reported", n)
		}
		if lines != nil {
			checkProgressLines(t, p, p.await(lines))
		}
		if m := p.await(untracked); m.Error != nil {
			t.Fatalf("sleep 1.2 without a token: %v", m.Error)
		}
		p.mu.Lock()
		n := len(p.notes)
		p.mu.Unlock()
		if got := len(p.progressNotes(`"build-1"`)) + len(p.progressNotes(`42`)); got != n {
			t.Fatalf("%d notifications for no token", n-got)
		}
	})
}

// progressLinesCommand prints a line every 200 ms for 3 s.
const progressLinesCommand = `for i in $(seq 1 15); do echo "step $i"; sleep 0.2; done`

// checkProgressLines checks the reply m of progressLinesCommand, token
// "build-1": at least 5 notifications came before it, the last with its
// lines and elapsed time.
func checkProgressLines(t *testing.T, p *peer, m message) {
	t.Helper()
	var res struct {
		ExitCode *int `json:"exitCode"`
		Stdout   struct {
			TotalLines int `json:"totalLines"`
		} `json:"stdout"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &res) != nil {
		t.Fatalf("%s: %v %s", progressLinesCommand, m.Error, m.Result)
	}
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

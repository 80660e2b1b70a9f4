package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"
)

// ProgressMethod is the notification that carries a request's progress, as
// LSP's work-done progress does: params {token, value}.
const ProgressMethod = "$/progress"

// progressTokenField is the param of any request that asks for progress.
const progressTokenField = "workDoneToken"

// ProgressInterval is the least time between two progress notifications of
// one request. The contract says "about once a second"; half a second gives a
// client whose timeout is reset by progress a margin of several reports.
const ProgressInterval = 500 * time.Millisecond

// Progress sends the $/progress notifications of one request whose params
// carry a workDoneToken. A nil *Progress is valid and sends nothing, so a
// method calls ProgressFrom(ctx) and uses what it gets.
//
// Values are never sent on the caller's goroutine: Report and Poll only
// record what to send, and one goroutine of the Progress sends it, at most
// once per ProgressInterval. The server ends that goroutine before it writes
// the request's reply, so no notification follows the reply.
type Progress struct {
	token    json.RawMessage
	send     func(token json.RawMessage, value any) error
	interval time.Duration

	mu      sync.Mutex
	started bool
	closed  bool
	poll    func() any // polled at each tick when set
	value   any        // the latest Report not yet sent
	dirty   bool
	stop    chan struct{}
	done    chan struct{}
}

type progressKey struct{}

// ProgressFrom returns the Progress of the request ctx belongs to, or nil
// when its params carry no workDoneToken.
func ProgressFrom(ctx context.Context) *Progress {
	p, _ := ctx.Value(progressKey{}).(*Progress)
	return p
}

// WithProgress returns ctx carrying p: for a layer that relays progress from
// another connection (the MCP server) and for tests.
func WithProgress(ctx context.Context, p *Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// NewProgress returns a Progress that calls send with token and each value,
// at most once per interval (0 means ProgressInterval). Close must be
// called once the request is done.
func NewProgress(token json.RawMessage, interval time.Duration, send func(token json.RawMessage, value any) error) *Progress {
	if interval <= 0 {
		interval = ProgressInterval
	}
	return &Progress{token: token, send: send, interval: interval}
}

// Token returns the request's workDoneToken as the client wrote it.
func (p *Progress) Token() json.RawMessage {
	if p == nil {
		return nil
	}
	return p.token
}

// Report records value as the latest progress. The first is sent one
// interval after the first Report (so a short operation sends none), then
// the latest at most once per interval. It never blocks on the connection.
func (p *Progress) Report(value any) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.value, p.dirty = value, true
	p.startLocked(false)
}

// Poll makes the Progress call source at once and then once per interval
// and send what it returns (nil: nothing this time), until the returned
// stop is called or the Progress is closed. It is for work that moves
// even when nothing reports it, such as a command's elapsed time. stop
// returns after the last call of source.
func (p *Progress) Poll(source func() any) (stop func()) {
	if p == nil {
		return func() {}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return func() {}
	}
	p.poll = source
	p.startLocked(true)
	return func() {
		p.mu.Lock()
		p.poll = nil
		p.mu.Unlock()
	}
}

// startLocked starts the sending goroutine once; p.mu is held.
func (p *Progress) startLocked(now bool) {
	if p.started {
		return
	}
	p.started = true
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go p.loop(now)
}

// loop sends the progress until Close; Close waits for it.
func (p *Progress) loop(now bool) {
	defer close(p.done)
	t := time.NewTicker(p.interval)
	defer t.Stop()
	if now {
		p.tick()
	}
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.tick()
		}
	}
}

// tick sends the current value, if there is one.
func (p *Progress) tick() {
	p.mu.Lock()
	var v any
	switch {
	case p.poll != nil:
		v = p.poll()
	case p.dirty:
		v = p.value
	}
	p.value, p.dirty = nil, false
	p.mu.Unlock()
	if v != nil {
		p.send(p.token, v) // a failed write is the connection's business
	}
}

// Close stops the notifications and returns once none is being sent: after
// it, none is sent. It is safe to call more than once.
func (p *Progress) Close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	wasClosed, started := p.closed, p.started
	p.closed = true
	p.poll = nil
	if started && !wasClosed {
		close(p.stop)
	}
	p.mu.Unlock()
	if started {
		<-p.done
	}
}

// workDoneToken returns the workDoneToken of a request's params: nil when
// there is none (or it is null), an error when it is neither a string nor a
// number.
func workDoneToken(params json.RawMessage) (json.RawMessage, error) {
	if !bytes.Contains(params, []byte(`"workDoneToken"`)) {
		return nil, nil // the common case costs no decoding
	}
	var p struct {
		WorkDoneToken json.RawMessage `json:"workDoneToken"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, nil // DecodeParams will say what is wrong with the params
	}
	tok := bytes.TrimSpace(p.WorkDoneToken)
	if len(tok) == 0 || string(tok) == "null" {
		return nil, nil
	}
	if tok[0] != '"' && !isNumberOrNull(tok) {
		return nil, InvalidParams("workDoneToken", "must be a string or a number")
	}
	var b bytes.Buffer
	if err := json.Compact(&b, tok); err != nil {
		return nil, InvalidParams("workDoneToken", "must be a string or a number")
	}
	return b.Bytes(), nil
}

// progressParams are ProgressMethod's params.
type progressParams struct {
	Token json.RawMessage `json:"token"`
	Value any             `json:"value"`
}

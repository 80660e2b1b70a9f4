package remote

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/toold/toold/rpc"
)

// inflight holds the requests forwarded to the daemon and not yet answered,
// so that a daemon that goes away (killed, crashed) leaves no request
// without a reply: the forwarder answers them itself. What it keeps of each
// also traces it (Options.Trace).
type inflight struct {
	mu  sync.Mutex
	ids map[string][]request // by idKey, in the order sent
}

// request is a request forwarded and not yet answered.
type request struct {
	id     json.RawMessage // as the client wrote it
	method string
	sent   time.Time
}

// envelope is the part of a message the forwarder looks at.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// sent notes msg, a client's message about to go to the daemon, when it is a
// request.
func (f *inflight) sent(msg []byte) {
	var e envelope
	if json.Unmarshal(msg, &e) != nil || e.Method == nil || len(e.ID) == 0 || *e.Method == rpc.CancelMethod {
		return // not a request the daemon will answer by id
	}
	key, ok := idKey(e.ID)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ids == nil {
		f.ids = make(map[string][]request)
	}
	f.ids[key] = append(f.ids[key], request{bytes.Clone(e.ID), *e.Method, time.Now()})
}

// answered forgets the request msg, a daemon's message, replies to, and
// returns it; ok is false when msg answers none.
func (f *inflight) answered(msg []byte) (req request, ok bool) {
	id, ok := replyID(msg)
	if !ok {
		return request{}, false
	}
	key, ok := idKey(id)
	if !ok {
		return request{}, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	list := f.ids[key]
	if len(list) == 0 {
		return request{}, false
	}
	if len(list) > 1 {
		f.ids[key] = list[1:]
	} else {
		delete(f.ids, key)
	}
	return list[0], true
}

// take returns the ids still unanswered and forgets them.
func (f *inflight) take() []json.RawMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []json.RawMessage
	for _, list := range f.ids {
		for _, r := range list {
			ids = append(ids, r.id)
		}
	}
	f.ids = nil
	return ids
}

// replyPrefix starts every reply the daemon writes (rpc's stream writes the
// envelope itself), so a reply's id is read without decoding its result,
// which may be megabytes.
var replyPrefix = []byte(`{"jsonrpc":"2.0","id":`)

// replyID returns the id of msg when it is a reply (no method).
func replyID(msg []byte) (json.RawMessage, bool) {
	if rest, ok := bytes.CutPrefix(msg, replyPrefix); ok {
		var id json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(rest))
		if dec.Decode(&id) == nil {
			return id, true
		}
	}
	var e envelope
	if json.Unmarshal(msg, &e) != nil || e.Method != nil || len(e.ID) == 0 {
		return nil, false
	}
	return e.ID, true
}

// errorPrefix follows the id in the daemon's envelope of an error reply.
var errorPrefix = []byte(`,"error":{"code":`)

// replyCode returns the error code of msg, a reply, read from the daemon's
// own envelope without decoding a result; ok is false for a result (or an
// envelope of another shape).
func replyCode(msg []byte) (code int64, ok bool) {
	rest, ok := bytes.CutPrefix(msg, replyPrefix)
	if !ok {
		return 0, false
	}
	dec := json.NewDecoder(bytes.NewReader(rest))
	var id json.RawMessage
	if dec.Decode(&id) != nil {
		return 0, false
	}
	rest, ok = bytes.CutPrefix(rest[dec.InputOffset():], errorPrefix)
	if !ok {
		return 0, false
	}
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return 0, false
	}
	code, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return code, err == nil
}

// idKey is a canonical form of a request id, the same for the id a client
// wrote and for the daemon's echo of it (which may escape a string
// differently). Only strings and numbers have one: the daemon answers a
// request with an id of another type -32600 with id null, and null is the
// id of its answers to input it cannot read, so neither names a request.
func idKey(id json.RawMessage) (string, bool) {
	id = bytes.TrimSpace(id)
	if len(id) == 0 || !(id[0] == '"' || id[0] == '-' || '0' <= id[0] && id[0] <= '9') {
		return "", false
	}
	if id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) != nil {
			return "", false
		}
		return "s" + strconv.Quote(s), true
	}
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return "", false
	}
	return "v" + b.String(), true
}

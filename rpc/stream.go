package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// stream is the jsonrpc2.ObjectStream under both Server and Client. Its
// ReadObject hands jsonrpc2 only messages that jsonrpc2 can decode without
// error, because jsonrpc2 closes the connection on any read error: the rest a
// server answers itself (-32700, -32600) and a client logs and drops. It
// returns an error only at the end of the input, and then always io.EOF.
type stream struct {
	rwc    io.ReadWriteCloser
	fr     *frameReader
	server bool // answer bad input; drop responses (a server sends no calls)
	log    *slog.Logger

	// onEnd, if set, runs on the read loop once the input has ended, before
	// ReadObject returns io.EOF: jsonrpc2 closes the connection after that, so
	// this is where a server lets running requests finish and reply.
	onEnd func()
	// onWriteErr, if set, is told of every failed write.
	onWriteErr func(error)

	// writeTimeout, if positive, bounds each write where rwc takes a
	// write deadline.
	writeTimeout time.Duration

	wmu     sync.Mutex // serializes writes: one message's bytes are never interleaved
	framing Framing    // for writes; guarded by wmu

	dmu     sync.Mutex // guards aborted and the write deadline, not held while writing
	aborted bool       // abortWrites has set the write deadline in the past

	ended   bool          // read loop only
	readErr error         // the input's error other than EOF; read after done
	done    chan struct{} // closed when ReadObject has returned io.EOF

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error

	// aliases maps the string ids given to requests whose ids jsonrpc2
	// cannot hold (negative or fractional numbers, null) to those ids as
	// the client wrote them, so that replies carry them back.
	amu     sync.Mutex
	aliases map[string]json.RawMessage
	nalias  uint64
}

// aliasPrefix starts the ids the stream gives to requests whose own ids
// jsonrpc2 cannot hold. Those ids are the stream's alone: a client's string
// id that starts with it is aliased too (see parseID), so that no client id
// can stand for another request's.
const aliasPrefix = "\x00toold-id-"

// alias gives raw, a request id jsonrpc2 cannot hold, a string id of ours.
func (s *stream) alias(raw json.RawMessage) string {
	s.amu.Lock()
	defer s.amu.Unlock()
	if s.aliases == nil {
		s.aliases = make(map[string]json.RawMessage)
	}
	s.nalias++
	a := aliasPrefix + strconv.FormatUint(s.nalias, 10)
	s.aliases[a] = bytes.Clone(raw)
	return a
}

// lookupAlias returns the client's id behind an alias, for a cancel.
func (s *stream) lookupAlias(raw json.RawMessage) (jsonrpc2.ID, bool) {
	s.amu.Lock()
	defer s.amu.Unlock()
	for a, orig := range s.aliases {
		if bytes.Equal(orig, bytes.TrimSpace(raw)) {
			return jsonrpc2.ID{Str: a, IsString: true}, true
		}
	}
	return jsonrpc2.ID{}, false
}

// idJSON is id as the reply must carry it: the client's own id behind an
// alias (which is then forgotten), else id as jsonrpc2 writes it.
func (s *stream) idJSON(id jsonrpc2.ID) ([]byte, error) {
	if id.IsString && strings.HasPrefix(id.Str, aliasPrefix) {
		s.amu.Lock()
		raw, ok := s.aliases[id.Str]
		delete(s.aliases, id.Str)
		s.amu.Unlock()
		if ok {
			return raw, nil
		}
	}
	return id.MarshalJSON()
}

func newStream(rwc io.ReadWriteCloser, framing Framing, max int, server bool, log *slog.Logger) *stream {
	s := &stream{
		rwc:     rwc,
		fr:      newFrameReader(rwc, framing, max),
		server:  server,
		log:     log,
		framing: framing,
		done:    make(chan struct{}),
	}
	s.fr.detected = func(f Framing) {
		s.wmu.Lock()
		s.framing = f
		s.wmu.Unlock()
	}
	return s
}

// ReadObject implements jsonrpc2.ObjectStream.
func (s *stream) ReadObject(v any) error {
	if s.ended {
		return io.EOF
	}
	for {
		msg, err := s.fr.next()
		var fe *frameError
		if errors.As(err, &fe) {
			if werr := s.reject(nil, fe.code, fe.msg); werr != nil {
				return s.end(nil)
			}
			continue
		}
		if err != nil {
			return s.end(err)
		}
		ok, werr := s.accept(msg, v)
		if werr != nil {
			return s.end(nil)
		}
		if ok {
			return nil
		}
	}
}

// end finishes the input: it records a real read error, runs onEnd and
// returns io.EOF.
func (s *stream) end(err error) error {
	if err != nil && err != io.EOF && !s.closed.Load() {
		s.readErr = err
		s.log.Debug("rpc: read failed", "err", err)
	}
	s.ended = true
	if s.onEnd != nil {
		s.onEnd()
	}
	close(s.done)
	return io.EOF
}

// accept checks one message and decodes it into v (jsonrpc2's message type).
// It reports false for a message it has answered or dropped, and an error
// only when writing the answer failed.
func (s *stream) accept(msg []byte, v any) (bool, error) {
	if len(msg) == 0 || msg[0] != '{' {
		switch {
		case !json.Valid(msg):
			return false, s.reject(nil, CodeParseError, "parse error: not valid JSON")
		case msg[0] == '[':
			return false, s.reject(nil, CodeInvalidRequest, "invalid request: batches are not supported")
		}
		return false, s.reject(nil, CodeInvalidRequest, "invalid request: not a JSON object")
	}
	// One pass both checks the syntax and splits the members.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, &fields); err != nil {
		var serr *json.SyntaxError
		if errors.As(err, &serr) {
			return false, s.reject(nil, CodeParseError, "parse error: not valid JSON")
		}
		return false, s.reject(nil, CodeInvalidRequest, "invalid request: "+err.Error())
	}
	rawID, hasID := fields["id"]
	var replyID json.RawMessage // the id to answer with, when it is one
	if hasID && len(rawID) > 0 && (rawID[0] == '"' || rawID[0] == '-' || (rawID[0] >= '0' && rawID[0] <= '9')) {
		replyID = rawID
	}
	idOK := !hasID || string(rawID) == "null" || validID(rawID)
	method, hasMethod := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]

	switch {
	case hasMethod:
		var name string
		if json.Unmarshal(method, &name) != nil {
			return false, s.reject(replyID, CodeInvalidRequest, `invalid request: "method" must be a string`)
		}
		if hasResult || hasError {
			return false, s.reject(replyID, CodeInvalidRequest, `invalid request: both "method" and "result" or "error"`)
		}
		if !isVersion2(fields["jsonrpc"]) {
			return false, s.reject(replyID, CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
		}
		if hasID && !validID(rawID) && s.server {
			// A number jsonrpc2 cannot hold, null (which it would take for a
			// notification) or a string in our aliases' namespace: the request
			// goes on under an id of ours.
			if !isNumberOrNull(rawID) && !isAliasString(rawID) {
				return false, s.reject(replyID, CodeInvalidRequest, `invalid request: "id" must be a string, a number or null`)
			}
			fields["id"], _ = json.Marshal(s.alias(rawID))
			var err error
			if msg, err = json.Marshal(fields); err != nil {
				return false, s.reject(replyID, CodeInvalidRequest, "invalid request: "+err.Error())
			}
		} else if !idOK {
			return false, s.reject(replyID, CodeInvalidRequest, `invalid request: "id" must be a string, an integer from 0 to 2^63-1, or null`)
		}
	case hasResult || hasError:
		if s.server {
			s.log.Debug("rpc: dropped a response: this server sends no requests", "id", string(rawID))
			return false, nil
		}
		if !hasID || string(rawID) == "null" || !idOK {
			s.log.Warn("rpc: dropped a response with no usable id", "id", string(rawID), "error", string(fields["error"]))
			return false, nil
		}
	default:
		return false, s.reject(replyID, CodeInvalidRequest, `invalid request: no "method"`)
	}

	// Start from a zero value: a failed decode may have left v half set.
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv.Elem().SetZero()
	}
	if err := json.Unmarshal(msg, v); err != nil {
		if !hasMethod {
			s.log.Warn("rpc: dropped a response that does not decode", "id", string(rawID), "err", err)
			return false, nil
		}
		return false, s.reject(replyID, CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return true, nil
}

// isVersion2 reports whether raw, a message's "jsonrpc" member, is the
// string "2.0" (however escaped), as JSON-RPC 2.0 requires of a request.
func isVersion2(raw json.RawMessage) bool {
	var v string
	return json.Unmarshal(raw, &v) == nil && v == "2.0"
}

// reject answers bad input with an error reply (a server) or logs it (a
// client). It returns an error only when the write failed.
func (s *stream) reject(id json.RawMessage, code int64, msg string) error {
	if !s.server {
		s.log.Warn("rpc: dropped bad input from the server", "code", code, "err", msg)
		return nil
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	if err := json.Compact(&b, id); err != nil {
		b.WriteString("null")
	}
	b.WriteString(`,"error":{"code":`)
	b.WriteString(strconv.FormatInt(code, 10))
	b.WriteString(`,"message":`)
	m, _ := json.Marshal(msg) // a string always encodes
	b.Write(m)
	b.WriteString("}}")
	s.log.Debug("rpc: rejected input", "code", code, "err", msg)
	return s.write(b.Bytes())
}

// writeResult sends a successful response whose result is already JSON,
// in its envelope as it is: sent through jsonrpc2.Conn, encoding/json would
// check and copy a large window three more times.
func (s *stream) writeResult(id jsonrpc2.ID, result json.RawMessage) error {
	return s.writeResponse(id, "result", result)
}

// writeError sends an error response.
func (s *stream) writeError(id jsonrpc2.ID, e *jsonrpc2.Error) error {
	body, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("rpc: encode error: %w", err)
	}
	return s.writeResponse(id, "error", body)
}

// writeResponse writes {"jsonrpc":"2.0","id":ID,"<member>":payload}.
func (s *stream) writeResponse(id jsonrpc2.ID, member string, payload []byte) error {
	idJSON, err := s.idJSON(id)
	if err != nil {
		return fmt.Errorf("rpc: encode id: %w", err)
	}
	data := make([]byte, 0, len(payload)+len(idJSON)+40)
	data = append(data, `{"jsonrpc":"2.0","id":`...)
	data = append(data, idJSON...)
	data = append(data, `,"`...)
	data = append(data, member...)
	data = append(data, `":`...)
	data = append(data, payload...)
	data = append(data, '}')
	return s.write(data)
}

// abortWrites makes a write that blocks, and every later one, fail: by a
// write deadline in the past where rwc takes one, else by closing rwc.
func (s *stream) abortWrites() {
	s.dmu.Lock()
	d, ok := s.rwc.(writeDeadliner)
	s.aborted = ok && d.SetWriteDeadline(time.Unix(1, 0)) == nil
	aborted := s.aborted
	s.dmu.Unlock()
	if !aborted {
		s.Close()
	}
}

// writeDeadliner is a connection that takes write deadlines.
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// setWriteDeadline starts the bound of one write.
func (s *stream) setWriteDeadline() {
	if s.writeTimeout <= 0 {
		return
	}
	s.dmu.Lock()
	defer s.dmu.Unlock()
	if d, ok := s.rwc.(writeDeadliner); ok && !s.aborted {
		d.SetWriteDeadline(time.Now().Add(s.writeTimeout))
	}
}

// writeNotification sends {"jsonrpc":"2.0","method":method,"params":params}.
func (s *stream) writeNotification(method string, params json.RawMessage) error {
	m, err := json.Marshal(method)
	if err != nil {
		return fmt.Errorf("rpc: encode method: %w", err)
	}
	data := make([]byte, 0, len(params)+len(m)+40)
	data = append(data, `{"jsonrpc":"2.0","method":`...)
	data = append(data, m...)
	data = append(data, `,"params":`...)
	data = append(data, params...)
	data = append(data, '}')
	return s.write(data)
}

// WriteObject implements jsonrpc2.ObjectStream.
func (s *stream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return fmt.Errorf("rpc: encode message: %w", err)
	}
	return s.write(data)
}

// write frames one message and writes it in one call, under the write lock.
func (s *stream) write(data []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	buf := AppendFrame(make([]byte, 0, len(data)+32), s.framing, data)
	s.setWriteDeadline()
	if _, err := s.rwc.Write(buf); err != nil {
		if s.onWriteErr != nil {
			s.onWriteErr(err)
		}
		return fmt.Errorf("rpc: write: %w", err)
	}
	return nil
}

// Close implements jsonrpc2.ObjectStream; it closes rwc once.
func (s *stream) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.closeErr = s.rwc.Close()
	})
	return s.closeErr
}

// isNumberOrNull reports whether raw is a JSON number or null.
func isNumberOrNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return true
	}
	var n json.Number
	return len(raw) > 0 && raw[0] != '"' && json.Unmarshal(raw, &n) == nil
}

// isAliasString reports whether raw is a JSON string that starts with
// aliasPrefix.
func isAliasString(raw json.RawMessage) bool {
	var s string
	return json.Unmarshal(raw, &s) == nil && strings.HasPrefix(s, aliasPrefix)
}

// validID reports whether raw is an id jsonrpc2 keeps as it is: a string
// outside our aliases' namespace or an integer from 0 to 2^63-1 (it would
// turn a negative one into a huge unsigned one, and refuses fractions and
// exponents).
func validID(raw json.RawMessage) bool {
	_, ok := parseID(raw)
	return ok
}

// parseID reads a request id as jsonrpc2 represents it.
func parseID(raw json.RawMessage) (jsonrpc2.ID, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return jsonrpc2.ID{}, false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil || strings.HasPrefix(s, aliasPrefix) {
			return jsonrpc2.ID{}, false
		}
		return jsonrpc2.ID{Str: s, IsString: true}, true
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return jsonrpc2.ID{}, false
		}
	}
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil || n > math.MaxInt64 {
		return jsonrpc2.ID{}, false
	}
	return jsonrpc2.ID{Num: n}, true
}

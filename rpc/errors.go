package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/sourcegraph/jsonrpc2"
)

// JSON-RPC's error codes, and LSP's for a cancelled request. An application
// defines its own codes (toold's are in package protocol).
const (
	// CodeParseError: the message is not JSON.
	CodeParseError int64 = -32700
	// CodeInvalidRequest: JSON, but not a valid request (or over the size cap).
	CodeInvalidRequest int64 = -32600
	// CodeMethodNotFound: no such method.
	CodeMethodNotFound int64 = -32601
	// CodeInvalidParams: bad params; the message names the field.
	CodeInvalidParams int64 = -32602
	// CodeInternalError: a bug or an unexpected failure (a panic, a plain error).
	CodeInternalError int64 = -32603
	// CodeRequestCancelled: the request was cancelled before it finished.
	CodeRequestCancelled int64 = -32800
)

// Error is a JSON-RPC error. A Handler returns one (possibly wrapped: the
// server finds it with errors.As) to choose the reply's code, message and
// data; Client.Call returns one for an error reply, with Data as the raw JSON
// the server sent (a json.RawMessage) or nil.
type Error struct {
	Code    int64
	Message string
	Data    any
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("rpc error %d: %s", e.Code, e.Message)
}

// Errorf returns an Error with the given code and data, and a message
// formatted as fmt.Sprintf does.
func Errorf(code int64, data any, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Data: data}
}

// InvalidParams returns a -32602 Error whose message names field, as in
// "invalid params: offset: must not be negative", and whose data is
// {"field": field}.
func InvalidParams(field string, format string, args ...any) *Error {
	msg := "invalid params: " + fmt.Sprintf(format, args...)
	if field != "" {
		msg = "invalid params: " + field + ": " + fmt.Sprintf(format, args...)
	}
	return &Error{Code: CodeInvalidParams, Message: msg, Data: map[string]string{"field": field}}
}

// MethodNotFound returns the -32601 Error for an unknown method, with data
// {"method": method}.
func MethodNotFound(method string) *Error {
	return Errorf(CodeMethodNotFound, map[string]string{"method": method}, "method not found: %s", method)
}

// wireError turns a handler's error into the error object of a reply: an
// *Error anywhere in the chain gives its code, message and data; a
// cancellation gives -32800; anything else -32603 with its message.
func wireError(err error, log *slog.Logger) *jsonrpc2.Error {
	var re *Error
	switch {
	case errors.As(err, &re) && re != nil:
		we := &jsonrpc2.Error{Code: re.Code, Message: re.Message}
		if re.Data != nil {
			b, merr := json.Marshal(re.Data)
			if merr != nil {
				log.Error("rpc: cannot encode error data; sending the error without it", "code", re.Code, "err", merr)
			} else {
				raw := json.RawMessage(b)
				we.Data = &raw
			}
		}
		return we
	case errors.Is(err, context.Canceled):
		return &jsonrpc2.Error{Code: CodeRequestCancelled, Message: "request cancelled"}
	default:
		return &jsonrpc2.Error{Code: CodeInternalError, Message: err.Error()}
	}
}

// fromWire turns the error object of a reply into an *Error.
func fromWire(we *jsonrpc2.Error) *Error {
	e := &Error{Code: we.Code, Message: we.Message}
	if we.Data != nil {
		e.Data = append(json.RawMessage(nil), *we.Data...)
	}
	return e
}

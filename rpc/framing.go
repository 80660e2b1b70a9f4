package rpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Framing is how messages are delimited on a byte stream.
type Framing int

const (
	// FramingAuto detects the framing from the first non-whitespace bytes read:
	// a header name followed by ':' means FramingHeaders, anything else
	// FramingLines. Writes before the first read use FramingLines.
	FramingAuto Framing = iota
	// FramingHeaders is the LSP / VS Code base protocol: "Content-Length: N"
	// (name case-insensitive; other headers ignored), an empty line, then N
	// bytes of JSON.
	FramingHeaders
	// FramingLines is newline-delimited JSON: one JSON value per line; blank
	// lines are skipped and a trailing \r is tolerated.
	FramingLines
)

// String names the framing.
func (f Framing) String() string {
	switch f {
	case FramingAuto:
		return "auto"
	case FramingHeaders:
		return "headers"
	case FramingLines:
		return "lines"
	default:
		return "Framing(" + strconv.Itoa(int(f)) + ")"
	}
}

const (
	// DefaultMaxMessageBytes is the size cap of one message when
	// Server.MaxMessageBytes is 0.
	DefaultMaxMessageBytes = 16 << 20

	readBufferSize = 64 << 10
	maxHeaderLine  = 8 << 10 // a longer header line is garbage
	maxHeaderName  = 64      // detection looks this far for "name:"
)

// frameError is a recoverable problem in the input: the reader has skipped
// the bad bytes, and the server replies with code and message (id null) and
// reads on.
type frameError struct {
	code int64
	msg  string
}

func (e *frameError) Error() string { return e.msg }

// frameReader cuts the input into messages. Only one goroutine uses it.
type frameReader struct {
	r       *bufio.Reader
	framing Framing
	max     int
	// detected, if set, is told the framing once it is known.
	detected func(Framing)

	resync  bool   // headers: skip to the next Content-Length before reading
	pending []byte // headers: a header line found while resyncing, read next
}

func newFrameReader(r io.Reader, framing Framing, max int) *frameReader {
	if max <= 0 {
		max = DefaultMaxMessageBytes
	}
	return &frameReader{r: bufio.NewReaderSize(r, readBufferSize), framing: framing, max: max}
}

// next returns the next message's bytes, a *frameError for bad input that it
// has skipped, or the reader's error (io.EOF at the end of the input).
func (fr *frameReader) next() ([]byte, error) {
	if fr.framing == FramingAuto {
		if err := fr.detect(); err != nil {
			return nil, err
		}
	}
	if fr.framing == FramingHeaders {
		return fr.nextHeaders()
	}
	return fr.nextLine()
}

// detect decides the framing from the first non-whitespace bytes without
// consuming them. It peeks one more byte at a time, so it never waits for
// bytes a client has not sent.
func (fr *frameReader) detect() error {
	for {
		b, err := fr.r.Peek(1)
		if err != nil {
			return err
		}
		if !isSpace(b[0]) {
			break
		}
		if _, err := fr.r.Discard(1); err != nil {
			return err
		}
	}
	framing := FramingLines
	for k := 1; k <= maxHeaderName+1; k++ {
		p, err := fr.r.Peek(k)
		if err != nil {
			break // the input ends before a header could: lines
		}
		c := p[k-1]
		if c == ':' && k > 1 {
			framing = FramingHeaders
			break
		}
		if !isTokenChar(c) {
			break
		}
	}
	fr.framing = framing
	if fr.detected != nil {
		fr.detected(framing)
	}
	return nil
}

func (fr *frameReader) nextLine() ([]byte, error) {
	for {
		line, tooLong, err := fr.readLine(fr.max)
		if err != nil {
			return nil, err
		}
		if tooLong {
			return nil, fr.tooLarge(-1)
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line, nil
		}
	}
}

func (fr *frameReader) nextHeaders() ([]byte, error) {
	if fr.resync {
		if err := fr.skipToContentLength(); err != nil {
			return nil, err
		}
	}
	length := int64(-1)
	seen := false
	for {
		line, tooLong, err := fr.readLine(maxHeaderLine)
		if err != nil {
			return nil, err
		}
		if tooLong {
			return nil, fr.garbage(nil, "header line too long")
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if !seen {
				continue // stray newlines between messages
			}
			break
		}
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok || !isToken(name) {
			return nil, fr.garbage(line, "not a header")
		}
		seen = true
		if !equalFoldASCII(name, "content-length") {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || n < 0 {
			return nil, fr.garbage(nil, fmt.Sprintf("bad Content-Length %q", bytes.TrimSpace(value)))
		}
		length = n
	}
	if length < 0 {
		return nil, fr.garbage(nil, "no Content-Length header")
	}
	if length > int64(fr.max) {
		// Drop the body in chunks (io.Discard reads 8 KiB at a time): a huge
		// message is never held in memory.
		if _, err := io.CopyN(io.Discard, fr.r, length); err != nil {
			return nil, eof(err)
		}
		return nil, fr.tooLarge(length)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(fr.r, body); err != nil {
		return nil, eof(err)
	}
	return body, nil
}

// garbage reports input that is not a header and arranges for the next read
// to skip to the next Content-Length header (which may start inside line).
func (fr *frameReader) garbage(line []byte, why string) error {
	if i := indexContentLength(line); i > 0 {
		fr.pending = append([]byte(nil), line[i:]...)
	} else {
		fr.resync = true
	}
	return &frameError{code: CodeParseError, msg: "parse error: " + why + "; skipped to the next Content-Length header"}
}

func (fr *frameReader) tooLarge(n int64) error {
	size := "a message"
	if n >= 0 {
		size = "a message of " + strconv.FormatInt(n, 10) + " bytes"
	}
	return &frameError{code: CodeInvalidRequest, msg: fmt.Sprintf("invalid request: %s is over the limit of %d bytes; dropped", size, fr.max)}
}

func (fr *frameReader) skipToContentLength() error {
	for {
		line, tooLong, err := fr.readLine(maxHeaderLine)
		if err != nil {
			return err
		}
		if tooLong {
			continue
		}
		if i := indexContentLength(line); i >= 0 {
			fr.pending = line[i:]
			fr.resync = false
			return nil
		}
	}
}

// readLine returns the next line without its "\n" or "\r\n", in a fresh
// slice. A line longer than limit is read and dropped in chunks, and reported
// as tooLong. A last line without "\n" is a line; after it comes the reader's
// error.
func (fr *frameReader) readLine(limit int) (line []byte, tooLong bool, err error) {
	if fr.pending != nil {
		line, fr.pending = fr.pending, nil
		return line, false, nil
	}
	for {
		chunk, err := fr.r.ReadSlice('\n')
		n := len(chunk)
		if err == nil {
			n-- // the '\n'
		}
		if !tooLong && len(line)+n > limit+1 { // +1: a '\r' before the '\n'
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk[:n]...)
		}
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && (len(line) > 0 || tooLong):
		default:
			return nil, false, err
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) > limit {
			tooLong, line = true, nil
		}
		return line, tooLong, nil
	}
}

// eof turns a message cut short by the end of the input into io.EOF.
func eof(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return io.EOF
	}
	return err
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// isTokenChar reports whether c may appear in a header name (RFC 9110 token).
func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
		return true
	}
	return false
}

func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isTokenChar(c) {
			return false
		}
	}
	return true
}

func equalFoldASCII(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// indexContentLength returns where "content-length:" (any case) starts in
// line, or -1.
func indexContentLength(line []byte) int {
	const name = "content-length:"
	for i := 0; i+len(name) <= len(line); i++ {
		if equalFoldASCII(line[i:i+len(name)], name) {
			return i
		}
	}
	return -1
}

// FrameReader reads messages framed as Framing says, or as detected from
// the first bytes: the one framer the server, the client and the forwarder
// share (as jsonrpc2_v2's Framer is shared). Only one goroutine may use it.
type FrameReader struct{ fr *frameReader }

// NewFrameReader returns a FrameReader of r. max caps one message; 0 means
// DefaultMaxMessageBytes.
func NewFrameReader(r io.Reader, framing Framing, max int) *FrameReader {
	return &FrameReader{fr: newFrameReader(r, framing, max)}
}

// Read returns the next message's bytes; an *Error, with the code and the
// message a server answers with (id null), for bad input that it has
// skipped, after which reading goes on; or the reader's error, io.EOF at the
// end of the input.
func (r *FrameReader) Read() ([]byte, error) {
	msg, err := r.fr.next()
	var fe *frameError
	if errors.As(err, &fe) {
		return nil, &Error{Code: fe.code, Message: fe.msg}
	}
	return msg, err
}

// Framing returns the framing read: FramingAuto until it is detected.
func (r *FrameReader) Framing() Framing { return r.fr.framing }

// AppendFrame appends msg, framed as f, to buf: Content-Length headers for
// FramingHeaders, a trailing newline otherwise.
func AppendFrame(buf []byte, f Framing, msg []byte) []byte {
	if f == FramingHeaders {
		buf = append(buf, "Content-Length: "...)
		buf = strconv.AppendInt(buf, int64(len(msg)), 10)
		buf = append(buf, "\r\n\r\n"...)
		return append(buf, msg...)
	}
	buf = append(buf, msg...)
	return append(buf, '\n')
}

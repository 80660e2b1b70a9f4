package rpc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// readAll cuts input into messages and frame errors, as the server reads it.
func readAll(input string, framing Framing, max int) (framed Framing, out []string) {
	fr := newFrameReader(strings.NewReader(input), framing, max)
	for {
		msg, err := fr.next()
		var fe *frameError
		switch {
		case errors.As(err, &fe):
			out = append(out, fmt.Sprintf("error %d", fe.code))
		case err == io.EOF:
			return fr.framing, out
		case err != nil:
			return fr.framing, append(out, "read error "+err.Error())
		default:
			out = append(out, string(msg))
		}
	}
}

func TestFrameReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		input   string
		framing Framing // detected
		want    []string
	}{
		{"empty", "", FramingAuto, nil},
		{"only whitespace", " \r\n\t\n", FramingAuto, nil},
		{"lines", "{\"a\":1}\n\n {\"b\":2} \r\n{\"c\":3}", FramingLines, []string{`{"a":1}`, `{"b":2}`, `{"c":3}`}},
		{"lines: a number first", "5\n{}\n", FramingLines, []string{`5`, `{}`}},
		{"a header first means headers", "hello: world\r\n\r\n", FramingHeaders, []string{"error -32700"}},
		{"lines: garbage word", "hello\n{}\n", FramingLines, []string{"hello", "{}"}},
		{"lines: too long", "{\"a\":\"xxxxxxxxxxxxxxxxxxxx\"}\n{}\n", FramingLines, []string{"error -32600", "{}"}},
		{"lines: too long at EOF", "{\"a\":\"xxxxxxxxxxxxxxxxxxxx\"}", FramingLines, []string{"error -32600"}},
		{"headers", "Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]", FramingHeaders, []string{`{}`, `[1]`}},
		{"headers: any case, other headers", "content-type: x\r\nCONTENT-LENGTH:  2 \r\n\r\n{}", FramingHeaders, []string{`{}`}},
		{"headers: body too long is dropped", "Content-Length: 30\r\n\r\n" + strings.Repeat("x", 30) + "Content-Length: 2\r\n\r\n{}", FramingHeaders, []string{"error -32600", `{}`}},
		{"headers: garbage then resync", "Content-Length: 2\r\n\r\n{}junk\r\nmore junk\r\nContent-Length: 2\r\n\r\n{}", FramingHeaders, []string{`{}`, "error -32700", `{}`}},
		{"headers: resync inside a line", "Content-Length: 2\r\n\r\n{}}}Content-Length: 2\r\n\r\n{}", FramingHeaders, []string{`{}`, "error -32700", `{}`}},
		{"headers: truncated body", "Content-Length: 10\r\n\r\n{}", FramingHeaders, nil},
		{"headers: truncated headers", "Content-Length: 10\r\n", FramingHeaders, nil},
		{"headers: header line too long", "X: " + strings.Repeat("y", maxHeaderLine) + "\r\nContent-Length: 2\r\n\r\n{}", FramingHeaders, []string{"error -32700", `{}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			framed, got := readAll(tt.input, FramingAuto, 20)
			if framed != tt.framing {
				t.Errorf("framing %v, want %v", framed, tt.framing)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFrameReaderRoundTrip frames messages with AppendFrame and reads them
// back with a detecting FrameReader, in both framings, headers in any order.
func TestFrameReaderRoundTrip(t *testing.T) {
	t.Parallel()
	msgs := [][]byte{[]byte(`{"a":1}`), []byte(`{"b":"x\ny"}`), []byte(`{}`)}
	for _, f := range []Framing{FramingHeaders, FramingLines} {
		var in []byte
		for _, m := range msgs {
			in = AppendFrame(in, f, m)
		}
		if f == FramingHeaders {
			in = append([]byte("X-Trace: 1\r\n"), in...)
		}
		r := NewFrameReader(bytes.NewReader(in), FramingAuto, 0)
		for _, want := range msgs {
			got, err := r.Read()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%v: got %q, %v; want %q", f, got, err, want)
			}
		}
		if r.Framing() != f {
			t.Errorf("detected %v, want %v", r.Framing(), f)
		}
		if _, err := r.Read(); err != io.EOF {
			t.Errorf("%v: at the end: %v", f, err)
		}
	}
	r := NewFrameReader(bytes.NewReader([]byte("Content-Length: x\r\n\r\n")), FramingAuto, 0)
	var e *Error
	if _, err := r.Read(); !errors.As(err, &e) || e.Code != CodeParseError {
		t.Errorf("a bad length: %v, want a -32700 *Error", err)
	}
}

package main

import (
	"encoding/json"
	"flag"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/lifecycle"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// TestFlagHelpStatesProtocol: the defaults and caps the flags' help states
// are protocol's (and the daemon's), not literals that drift from them.
func TestFlagHelpStatesProtocol(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var o options
	o.limits.define(fs)
	connFlags(fs, &o)
	remoteFlags(fs, &o)
	d := protocol.DefaultLimits
	itoa := strconv.Itoa
	for _, c := range []struct {
		flag string
		want []string
	}{
		{"read.limit", []string{itoa(d.Read.Limit)}},
		{"read.max-bytes", []string{itoa(d.Read.MaxBytes), itoa(protocol.MaxWindowBytes)}},
		{"read.max-line-chars", []string{itoa(d.Read.MaxLineChars)}},
		{"readbytes.max-bytes", []string{itoa(d.ReadBytes.MaxBytes), itoa(protocol.MaxWindowBytes)}},
		{"exec.max-lines", []string{itoa(d.Exec.MaxLines)}},
		{"exec.max-bytes", []string{itoa(d.Exec.MaxBytes), itoa(protocol.MaxExecBytes)}},
		{"exec.timeout", []string{shortDuration(time.Duration(d.Exec.TimeoutMs) * time.Millisecond)}},
		{"write-timeout", []string{shortDuration(rpc.DefaultWriteTimeout)}},
		{"max-conns", []string{itoa(lifecycle.DefaultMaxConnsPerUID), strconv.FormatInt(protocol.CodeTooManyConnections, 10)}},
		{"idle-timeout", []string{shortDuration(autoIdle)}},
	} {
		f := fs.Lookup(c.flag)
		if f == nil {
			t.Fatalf("no flag --%s", c.flag)
		}
		for _, w := range c.want {
			if !strings.Contains(f.Usage, w) {
				t.Errorf("--%s: %q does not state %s", c.flag, f.Usage, w)
			}
		}
	}
}

func TestShortDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		time.Minute: "1m", 2 * time.Minute: "2m", 90 * time.Second: "1m30s",
		time.Hour: "1h", 24 * time.Hour: "24h", 5 * time.Second: "5s",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestLimitFlagsParams: the limit flags given become initialize's typed
// limits, the groups with no flag given left out.
func TestLimitFlagsParams(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string // JSON; "null": no limits param
		err  string
	}{
		{nil, "null", ""},
		{[]string{"-read.limit=5"}, `{"read":{"limit":5}}`, ""},
		{[]string{"-exec.timeout=2s", "-readbytes.max-bytes=9"}, `{"readBytes":{"maxBytes":9},"exec":{"timeoutMs":2000}}`, ""},
		{[]string{"-read.max-bytes=0"}, `{"read":{"maxBytes":0}}`, ""},
		{[]string{"-exec.max-lines=-1"}, "", "--exec.max-lines: -1 is negative"},
		{[]string{"-exec.timeout=-1s"}, "", "--exec.timeout: -1s is negative"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		var l limitFlags
		l.define(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		p, err := l.params()
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%v: err %v, want %s", c.args, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		b, _ := json.Marshal(p)
		if string(b) != c.want {
			t.Errorf("%v: %s, want %s", c.args, b, c.want)
		}
	}
}

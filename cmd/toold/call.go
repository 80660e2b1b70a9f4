package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/schema"
)

var cmdCall = &command{
	name: "call", args: "METHOD [JSON]", summary: "send one request, print the result as JSON",
	help: `Sends one request with JSON as its params and prints the result as JSON on stdout;
an error is printed as JSON on stderr, with exit status 1.

The request runs in a session of its own, which ends when toold call exits: an exec
result names no spool, since its spool is deleted with the session, and its notice
says so (to page long output, keep a session open: toold --remote=auto, or toold mcp).

Without --remote the daemon runs in this process; with --remote=auto (or =SOCKET) the
request goes to the shared daemon, started if none answers, and shares its cache. The
daemon's flags (--idle-timeout, --index, --index-quota, --spool-*) apply when it starts
it; given to a daemon that runs already with other values, they are named in a warning.

Example:
  toold call read '{"path":"README.md","limit":5}'`,
	flags: func(fs *flag.FlagSet, o *options) {
		remoteFlags(fs, o)
		spoolFlag(fs, o)
		logFlags(fs, o)
	},
	run: runCall,
}

func runCall(o *options, args []string) int {
	if len(args) < 1 || len(args) > 2 {
		fmt.Fprintln(os.Stderr, "toold call: usage: toold call METHOD [JSON] (see: toold help call)")
		return 2
	}
	method := args[0]
	if o.remote == "" {
		// A daemon that ends with this one call would only start a build
		// it then cancels.
		o.index = "off"
	}
	var params json.RawMessage
	if len(args) == 2 {
		params = json.RawMessage(args[1])
		if !json.Valid(params) {
			fmt.Fprintf(os.Stderr, "toold call: params are not valid JSON: %s\n", args[1])
			return 1
		}
	}
	return withConnect(o, func(ctx context.Context, connect connectFunc) int {
		// The session ends with this call, and its spools with it: the
		// daemon's notices say so instead of naming a spool.
		kept := false
		client, err := connect(ctx, map[string]any{"notices": protocol.NoticeParams{SpoolsKept: &kept}})
		if err != nil {
			fmt.Fprintln(os.Stderr, "toold call:", err)
			return 1
		}
		var result json.RawMessage
		err = client.Call(ctx, method, params, &result)
		client.Close()
		if err != nil {
			var rerr *rpc.Error
			if errors.As(err, &rerr) {
				b, _ := json.Marshal(map[string]any{"code": rerr.Code, "message": rerr.Message, "data": rerr.Data})
				fmt.Fprintln(os.Stderr, string(b))
			} else {
				fmt.Fprintln(os.Stderr, "toold call:", err)
			}
			return 1
		}
		if method == "exec" {
			result = dropSpools(result)
		}
		printJSON(result)
		return 0
	})
}

// dropSpools removes from an exec result the spools that will not exist
// once toold call exits (its notice, composed with notices.spoolsKept
// false, names none already).
func dropSpools(raw json.RawMessage) json.RawMessage {
	var r protocol.ExecResult
	if json.Unmarshal(raw, &r) != nil {
		return raw
	}
	for _, s := range []*protocol.Stream{&r.Stdout, &r.Stderr} {
		s.Spool = nil
	}
	out, err := json.Marshal(&r)
	if err != nil {
		return raw
	}
	return out
}

var cmdSchema = &command{
	name: "schema", args: "[METHOD]", summary: "the JSON Schema of every method's params and result",
	help: `Prints, as one JSON object by method name, the JSON Schema of each method's params
and result, generated from the wire types (package protocol); a method that takes no
params has no params schema, exit (a notification) has neither. A params schema requires
only what the method cannot do without and allows other fields (toold ignores an unknown
param, and its notice names it); a result schema lists every field. With METHOD, that
method's {params, result} alone. toold mcp gives MCP clients the same schemas.`,
	flags: func(*flag.FlagSet, *options) {},
	run: func(_ *options, args []string) int {
		all, err := schema.All()
		if err != nil {
			fmt.Fprintln(os.Stderr, "toold schema:", err)
			return 1
		}
		switch len(args) {
		case 0:
			printJSON(all)
		case 1:
			m, ok := all[args[0]]
			if !ok {
				fmt.Fprintf(os.Stderr, "toold schema: no method %q (toold schema lists them all)\n", args[0])
				return 2
			}
			printJSON(m)
		default:
			fmt.Fprintln(os.Stderr, "toold schema: one method at most")
			return 2
		}
		return 0
	},
}

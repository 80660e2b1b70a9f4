// Package client is a Go agent's way to toold: typed calls (Read, ReadBytes,
// Page, Exec, the Process calls of background commands, Grep, Find, Ls,
// Stats) with the wire types of package protocol, over a toold
// it starts on stdio (Start), the shared daemon of --remote=auto (Remote),
// or a daemon's unix socket (Dial). Each Client is one toold session: its
// spools last until Close.
//
// A call the daemon refuses returns an *rpc.Error (errors.As) with the
// protocol's code (protocol.CodeNoSuchFile, ...), message and data.
package client

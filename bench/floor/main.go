// Command floor is hello-world with the third-party packages toold links
// (the MCP SDK and with it net/http and crypto, jsonschema-go, go-git's
// gitignore, charmbracelet's ansi, jsonrpc2, fsnotify) linked in and their
// package inits run. bench/start.sh times it beside toold: what toold's own
// code adds to a process's start is the gap between the two.
package main

import (
	"fmt"

	_ "github.com/charmbracelet/x/ansi"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/go-git/go-git/v5/plumbing/format/gitignore"
	_ "github.com/google/jsonschema-go/jsonschema"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/sourcegraph/jsonrpc2"
)

func main() { fmt.Println("hello") }

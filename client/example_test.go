package client_test

import (
	"context"
	"fmt"
	"log"

	"github.com/toold/toold/client"
	"github.com/toold/toold/protocol"
)

// A Go agent reads a window of a file, runs a command and pages what its
// preview left out, in one session of the shared daemon.
func Example() {
	ctx := context.Background()
	c, err := client.Remote(ctx, "toold")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	w, err := c.Read(ctx, &protocol.ReadParams{Path: "go.mod", Limit: client.N(20)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(w.Content)
	ex, err := c.Exec(ctx, &protocol.ExecParams{Command: client.S("go test ./...")})
	if err != nil {
		log.Fatal(err)
	}
	if o := ex.Stdout.Omitted; o != nil && ex.Stdout.Spool != nil {
		page, err := c.Page(ctx, &protocol.PageParams{Spool: ex.Stdout.Spool.ID,
			ReadParams: protocol.ReadParams{Offset: client.N(o.FromLine), Limit: client.N(100)}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(page.Content)
	}
}

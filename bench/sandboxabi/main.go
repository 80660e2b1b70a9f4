// Command sandboxabi prints this kernel's Landlock ABI (0 without
// Landlock), for bench/sandbox.sh's rows.
package main

import (
	"fmt"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

func main() {
	abi, _ := llsys.LandlockGetABIVersion()
	fmt.Println(abi)
}

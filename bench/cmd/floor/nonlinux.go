//go:build !linux

// Command floor is an epoll or io_uring loop: it runs on Linux only.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "floor: runs on Linux only (an epoll loop)")
	os.Exit(2)
}

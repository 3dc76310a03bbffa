//go:build !linux

package targets

import "errors"

// uringAvailable: io_uring is Linux's.
func uringAvailable() error { return errors.New("io_uring is Linux's") }

package targets

import "hellobench/internal/uring"

// uringAvailable says why this process cannot set up an io_uring ring, or
// nil when it can.
func uringAvailable() error {
	r, err := uring.New(8)
	if err != nil {
		return err
	}
	r.Close()
	return nil
}

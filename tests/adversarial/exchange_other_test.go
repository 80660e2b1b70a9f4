//go:build !linux && !darwin

package adversarial

import "errors"

// canExchange: FreeBSD has no call that swaps two names at once.
const canExchange = false

func exchange(string, string) error { return errors.ErrUnsupported }

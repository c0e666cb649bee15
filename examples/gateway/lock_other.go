//go:build !unix

package main

import (
	"errors"
	"fmt"
	"os"
)

// lockFile reports that this platform has no advisory lock the gateway
// uses: -state is refused rather than shared unlocked.
func lockFile(*os.File) error {
	return fmt.Errorf("-state needs advisory file locks (flock): %w", errors.ErrUnsupported)
}

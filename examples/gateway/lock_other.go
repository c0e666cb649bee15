//go:build !unix

package main

import (
	"errors"
	"os"
)

// lockFile reports that this platform has no advisory lock the gateway
// uses: -state is refused rather than shared unlocked.
func lockFile(*os.File) error {
	return errors.New("-state needs advisory file locks (flock), which this platform lacks")
}

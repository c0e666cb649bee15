//go:build !unix

package toolname

import (
	"errors"
	"fmt"
	"os"
)

// lockFile reports that this platform has no advisory file lock that the
// file store uses: a file store is refused rather than shared unlocked.
func lockFile(*os.File) error {
	return fmt.Errorf("a file store needs advisory file locks (flock): %w", errors.ErrUnsupported)
}

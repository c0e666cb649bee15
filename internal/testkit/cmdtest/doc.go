// Package cmdtest runs the repository's commands in their tests: built as a
// binary for a subprocess, or in process in their -http mode.
package cmdtest

import "time"

// waitFor bounds how long a helper waits for a command to start or to
// stop: far beyond what either takes on a loaded machine, so that it only
// keeps a failing test from hanging.
const waitFor = 20 * time.Second

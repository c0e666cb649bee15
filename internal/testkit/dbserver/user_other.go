//go:build !unix

package dbserver

import "os/exec"

// unprivileged does nothing: only unix systems run tests as root here.
func unprivileged(dir string) error { return nil }

// pgCommand returns a command of PostgreSQL's.
func pgCommand(name string, args ...string) *exec.Cmd { return exec.Command(name, args...) }

//go:build !unix

package downstream

import (
	"os"
	"os/exec"
)

// ownProcessGroup does nothing where process groups are not the unix kind.
func ownProcessGroup(*exec.Cmd) {}

// killProcessGroup kills p.
func killProcessGroup(p *os.Process) error { return p.Kill() }

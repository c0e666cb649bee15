//go:build unix

package downstream

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup has cmd start a process group of its own, so that
// killProcessGroup ends the children it starts too.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills p and every process of its group.
func killProcessGroup(p *os.Process) error {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil {
		return p.Kill()
	}
	return nil
}

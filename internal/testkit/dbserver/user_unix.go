//go:build unix

package dbserver

import (
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// pgUser is the user PostgreSQL runs as when the test runs as root.
const pgUser = "nobody"

// credential returns the credential that PostgreSQL's commands run with:
// pgUser's under root, nil (the test's own) otherwise.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(pgUser)
	if err != nil {
		return nil, err
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// unprivileged gives dir to the user PostgreSQL runs as.
func unprivileged(dir string) error {
	c, err := credential()
	if err != nil || c == nil {
		return err
	}
	return os.Chown(dir, int(c.Uid), int(c.Gid))
}

// pgCommand returns a command of PostgreSQL's, run as the user PostgreSQL
// runs as.
func pgCommand(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = "/" // the test's directory may be closed to that user
	if c, err := credential(); err == nil && c != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c}
	}
	return cmd
}

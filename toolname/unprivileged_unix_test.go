//go:build unix

package toolname_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// runUnprivileged reports whether the test goes on in this process, as a
// user whom file permissions bind. As root, whom they do not, it runs the
// test again in a process of the user nobody, fails t if that fails or
// skips, and reports false.
func runUnprivileged(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return true
	}
	require.Empty(t, os.Getenv("MCPID_UNPRIVILEGED"), "the child still runs as root")
	dir, err := os.MkdirTemp("", "mcpid-unprivileged")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	require.NoError(t, os.Chmod(dir, 0o755))
	bin := filepath.Join(dir, "test")
	copyFile(t, os.Args[0], bin)
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCPID_UNPRIVILEGED=1", "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	require.NoError(t, os.Chmod(dir, 0o777))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "--- PASS: "+t.Name(), string(out))
	return false
}

// copyFile copies the file at from to a new executable file at to.
func copyFile(t *testing.T, from, to string) {
	src, err := os.Open(from)
	require.NoError(t, err)
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())
}

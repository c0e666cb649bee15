//go:build unix

package downstream

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommandKillsItsProcessGroup: a server that does not exit once its
// stdin is closed is killed with the children it started (here, a
// wrapper shell's), and Wait returns once it is reaped.
func TestCommandKillsItsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	cmd := &Command{
		Argv: []string{"sh", "-c", `sleep 60 & echo $! >"$PID_FILE"; wait`},
		Env:  Env(os.Environ(), []string{"PID_FILE=" + pidFile}),
	}
	conn, err := cmd.Connect(t.Context())
	require.NoError(t, err)
	var child int
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && child > 0
	}, 10*time.Second, 10*time.Millisecond, "the shell starts its child")
	require.NotNil(t, cmd.Process())

	require.NoError(t, conn.Close())
	cmd.Wait()
	// SIGKILL reaches the child asynchronously.
	assert.Eventually(t, func() bool { return gone(child) }, 10*time.Second, 10*time.Millisecond, "the child of the server is killed with it")
	assert.ErrorIs(t, cmd.Process().Signal(syscall.Signal(0)), os.ErrProcessDone, "the server is reaped")
}

// gone reports whether the process pid has exited: it no longer exists,
// or it is a zombie that its new parent has not reaped yet.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	// The state follows the command's name, which is in parentheses.
	_, after, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(after, "Z")
}

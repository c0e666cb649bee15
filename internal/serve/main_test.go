package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mainEnv is the variable that makes the test binary a command run by
// Main: "stops" returns once its context ends, "hangs" never returns,
// as a command whose graceful stop takes long.
const mainEnv = "SERVE_TEST_MAIN"

func TestMain(m *testing.M) {
	if mode := os.Getenv(mainEnv); mode != "" {
		Main("main-test", func(ctx context.Context) error {
			fmt.Println("running")
			<-ctx.Done()
			fmt.Println("stopping")
			if mode == "hangs" {
				select {}
			}
			return nil
		})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestMainSignals: the first SIGTERM ends run's context, and run's nil
// ends the process with 0; a second SIGTERM while run is stopping exits
// at once, with 143.
func TestMainSignals(t *testing.T) {
	for _, tt := range []struct {
		mode    string
		signals int
		want    int
	}{
		{"stops", 1, 0},
		{"hangs", 2, 128 + int(syscall.SIGTERM)},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			exe, err := os.Executable()
			require.NoError(t, err)
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), mainEnv+"="+tt.mode)
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			// Each signal is sent once the command has said the line before
			// it: running (its handler is installed), stopping (run saw the
			// first).
			lines := bufio.NewScanner(out)
			for _, line := range []string{"running", "stopping"}[:tt.signals] {
				require.True(t, lines.Scan(), "the command's output ended before %q", line)
				require.Equal(t, line, lines.Text())
				require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			}
			exited := make(chan error, 1)
			go func() {
				_, _ = io.Copy(io.Discard, out)
				exited <- cmd.Wait()
			}()
			select {
			case err := <-exited:
				var exit *exec.ExitError
				if tt.want != 0 {
					require.True(t, errors.As(err, &exit), "%v", err)
					assert.Equal(t, tt.want, exit.ExitCode())
				} else {
					assert.NoError(t, err)
				}
			case <-time.After(waitFor):
				t.Fatal("the command did not exit")
			}
		})
	}
}

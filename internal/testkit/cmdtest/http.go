package cmdtest

import (
	"bufio"
	"context"
	"io"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// announce is the line that serve.Serve writes once it listens.
var announce = regexp.MustCompile(`MCP streamable HTTP on (http://\S+/mcp)$`)

// StartHTTP runs a command's run function with a context of its own and
// a stderr that StartHTTP reads, waits until the command announces its
// endpoint, and returns the endpoint. When the test ends it cancels the
// context and requires run to return nil: the command shuts down
// cleanly.
func StartHTTP(t *testing.T, run func(ctx context.Context, stderr io.Writer) error) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, pw)
		_ = pw.Close()
		done <- err
	}()
	endpoint := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := announce.FindStringSubmatch(sc.Text()); m != nil {
				endpoint <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr) // the command's later logs
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err, "the command's return after its context ended")
		case <-time.After(waitFor):
			t.Error("the command did not stop when its context ended")
		}
	})
	select {
	case url := <-endpoint:
		return url
	case err := <-done:
		done <- err // for the cleanup
		require.Failf(t, "the command ended before it listened", "%v", err)
	case <-time.After(waitFor):
		require.FailNow(t, "the command did not announce its endpoint")
	}
	return ""
}

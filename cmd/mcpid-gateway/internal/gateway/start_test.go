package gateway

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/toolname"
)

// TestStartOnHungStore: with the store hung (Redis paused), the start's
// checks of both chains share one deadline, -timeout: /healthz answers
// while they wait, the gateway serves MCP within about -timeout (not one
// -timeout per check), and a replica with other naming options than its
// -backup is refused within it as well (it was not refused at all: the
// comparison with the backup ran on the deadline the store had used up).
// The bounds are twice -timeout, far from the three -timeouts the checks
// took one after another.
func TestStartOnHungStore(t *testing.T) {
	const timeout = 3 * time.Second
	srv := dbserver.StartRedis(t)
	names, _, err := toolname.Update(t.Context(), openRedis(t, srv.URL, "mcpid"), toolname.Portable, chainKeys)
	require.NoError(t, err)
	backup := filepath.Join(t.TempDir(), "backup.json")
	file := fileStore(t, backup)
	_, err = file.Swap(t.Context(), "", names)
	require.NoError(t, err)
	require.NoError(t, file.Close())
	srv.Pause()
	t.Cleanup(srv.Resume)
	args := []string{"-http", "127.0.0.1:0", "-state", srv.URL, "-timeout", timeout.String()}

	t.Run("mismatch", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 4*timeout) // a replica that started would serve till then
		defer cancel()
		began := time.Now()
		err := Run(ctx, append(args, "-backup", backup, "-qualify", "all"), io.Discard, io.Discard)
		require.ErrorIs(t, err, toolname.ErrChainMismatch, "compared with the backup once the store did not answer")
		assert.Less(t, time.Since(began), 2*timeout)
	})

	t.Run("serves", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		began := time.Now()
		go func() {
			done <- Run(ctx, args, io.Discard, pw)
			_ = pw.Close()
		}()
		t.Cleanup(func() {
			srv.Resume()
			cancel()
			<-done
		})
		endpoint := make(chan string, 1)
		go func() {
			announce := regexp.MustCompile(`MCP streamable HTTP on (http://\S+/mcp)$`)
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				if m := announce.FindStringSubmatch(sc.Text()); m != nil {
					endpoint <- m[1]
				}
			}
		}()
		var url string
		select {
		case url = <-endpoint:
		case <-time.After(testTimeout):
			t.Fatal("the gateway did not listen")
		}
		base := strings.TrimSuffix(url, "/mcp")
		res, err := http.Get(base + "/healthz")
		require.NoError(t, err)
		_ = res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode)
		assert.Less(t, time.Since(began), timeout, "/healthz answers while the store is checked")
		res, err = http.Get(base + "/readyz")
		require.NoError(t, err)
		_ = res.Body.Close()
		assert.Equal(t, http.StatusServiceUnavailable, res.StatusCode)

		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
		require.NoError(t, err, "an MCP request waits for the start, then is served")
		_ = cs.Close()
		assert.Less(t, time.Since(began), 2*timeout, "the checks share one -timeout")
	})
}

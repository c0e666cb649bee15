package gateway

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/toolname"
)

func TestNamesAndRouting(t *testing.T) {
	tests := []struct {
		name string
		cfg  config
		want map[string]string // name -> the answer of the routed call
	}{
		{"collision", config{}, map[string]string{
			"alpha__search": `alpha answered search(query="q")`,
			"beta__search":  `beta answered search(query="q")`,
			"create_issue":  `beta answered create_issue(query="q")`,
			"fetch":         `alpha answered fetch(query="q")`,
		}},
		{"qualify all, OpenAI", config{profile: toolname.OpenAI, qualifyAll: true}, map[string]string{
			"alpha__search":      `alpha answered search(query="q")`,
			"alpha__fetch":       `alpha answered fetch(query="q")`,
			"beta__search":       `beta answered search(query="q")`,
			"beta__create_issue": `beta answered create_issue(query="q")`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c := startGateway(t, tt.cfg, demoServers()...)
			names := c.names(t)
			got := map[string]string{}
			for _, name := range names {
				assert.True(t, tt.cfg.profile.Valid(name), "%q is not valid under the profile", name)
				assert.True(t, toolname.MCP.Valid(name), "%q is not a valid MCP tool name", name)
				res := c.call(t, name, "q")
				assert.False(t, res.IsError, "%s: %s", name, resultText(res))
				got[name] = resultText(res)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("routed answers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJoinRenamesNoOne: a server that joins while the gateway runs gets
// new names, no other tool is renamed, and the client is told.
func TestJoinRenamesNoOne(t *testing.T) {
	g, c := startGateway(t, config{}, inProcessServer("alpha", "search", "fetch"))
	assert.Equal(t, []string{"fetch", "search"}, c.names(t))

	require.NoError(t, g.join(t.Context(), inProcessServer("beta", "search", "list")))
	waitChanged(t, c)
	assert.Equal(t, []string{"beta__search", "fetch", "list", "search"}, c.names(t))
	assert.Equal(t, `alpha answered search(query="x")`, resultText(c.call(t, "search", "x")))
	assert.Equal(t, `beta answered search(query="x")`, resultText(c.call(t, "beta__search", "x")))

	require.Error(t, g.join(t.Context(), inProcessServer("beta", "other")), "a second server of the same name")
}

// TestDownstreamListChange: a downstream server's tools/list_changed
// reaches the gateway, which re-assigns the table and tells its client.
func TestDownstreamListChange(t *testing.T) {
	alpha := inProcessServer("alpha", "search")
	beta := inProcessServer("beta", "fetch")
	_, c := startGateway(t, config{}, alpha, beta)
	assert.Equal(t, []string{"fetch", "search"}, c.names(t))

	addEchoTool(beta.transport.(inProcess).srv, "beta", "search")
	waitChanged(t, c)
	require.Eventually(t, c.hasNames(t.Context(), 3), testTimeout, 10*time.Millisecond)
	assert.Equal(t, []string{"beta__search", "fetch", "search"}, c.names(t))

	beta.transport.(inProcess).srv.RemoveTools("search")
	require.Eventually(t, c.hasNames(t.Context(), 2), testTimeout, 10*time.Millisecond)
	assert.Equal(t, []string{"fetch", "search"}, c.names(t))
	res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "beta__search"})
	require.NoError(t, err)
	assert.Equal(t, "unknown_tool", envelopeCode(t, res), "a retired name is not served")
}

func waitChanged(t *testing.T, c *client) {
	t.Helper()
	select {
	case <-c.changed:
	case <-time.After(testTimeout):
		t.Fatal("the client was not told that the tool list changed")
	}
}

// TestRestartWithState: a gateway restarted from its state file, with
// the servers starting in another order, gives every tool the same name,
// and a server that joined before the restart keeps its names.
func TestRestartWithState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	store := fileStore(t, state)
	g, c := startGateway(t, config{store: store}, inProcessServer("alpha", "search"))
	require.FileExists(t, state, "the table is stored at start")
	require.NoError(t, g.join(t.Context(), inProcessServer("beta", "search")))
	before := c.names(t)
	assert.Equal(t, []string{"beta__search", "search"}, before)
	g.close()
	require.NoError(t, store.Close())

	// Started fresh, the two would be alpha__search and beta__search.
	_, c2 := startGateway(t, config{store: fileStore(t, state)}, inProcessServer("beta", "search"), inProcessServer("alpha", "search"))
	assert.Equal(t, before, c2.names(t))
	assert.Equal(t, `alpha answered search(query="x")`, resultText(c2.call(t, "search", "x")))
}

// TestNoSaveAfterClose: a change that comes after the gateway was closed
// changes neither its table nor the state file, which a restarted gateway
// may already be using.
func TestNoSaveAfterClose(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	alpha := inProcessServer("alpha", "search")
	g, c := startGateway(t, config{store: fileStore(t, state)}, alpha)
	saved, err := os.ReadFile(state)
	require.NoError(t, err)
	before := c.names(t)
	g.close()

	addEchoTool(alpha.transport.(inProcess).srv, "alpha", "late")
	require.Error(t, g.flush(t.Context()), "a closed gateway assigns nothing")
	after, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.Equal(t, string(saved), string(after), "the state file was rewritten after close")
	assert.Equal(t, before, c.names(t))
}

func TestCorruptState(t *testing.T) {
	for name, data := range map[string]string{
		"empty":     "",
		"not JSON":  "names: all of them",
		"truncated": `{"version":1,"names":[{"server":"a","tool":"b","name":"b"}`,
		"bad entry": `{"version":1,"names":[{"server":"a","tool":"b","name":"b c"}],"retired":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "names.json")
			require.NoError(t, os.WriteFile(state, []byte(data), 0o600))
			err := chainstore.Check(t.Context(), fileStore(t, state), state, testTimeout)
			require.ErrorIs(t, err, toolname.ErrInvalidTable, "a damaged state file is never a new chain")
			assert.Contains(t, err.Error(), state)
			_, err = chainstore.ReadTable(state)
			require.ErrorIs(t, err, toolname.ErrInvalidTable, "nor a backup, nor a table to seed")
			assert.Contains(t, err.Error(), state)
			kept, err := os.ReadFile(state)
			require.NoError(t, err)
			assert.Equal(t, data, string(kept), "the file is left as it was")
		})
	}
}

// TestBadDownstreams: servers that fail to start, never answer, list
// tools they should not, or die mid-call cost only their own tools.
func TestBadDownstreams(t *testing.T) {
	odd := `[{"name":"","inputSchema":{"type":"object"}},
		{"name":"dup","inputSchema":{"type":"object"}},
		{"name":"dup","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}},
		{"name":"noschema"},
		{"name":"stringschema","inputSchema":{"type":"string"}},
		{"name":"search","inputSchema":{"type":"object"},"outputSchema":true}]`
	// The gateway waits this long for the servers that never answer; the
	// others answer within a few milliseconds, even on a loaded machine.
	const hang = time.Second
	_, c := startGateway(t, config{timeout: hang},
		inProcessServer("alpha", "search"),
		downstreamSpec{"broken", failing{}},
		downstreamSpec{"silent", scripted{}},
		downstreamSpec{"odd", scripted{answersInitialize: true, tools: odd}},
		downstreamSpec{"crashing", scripted{answersInitialize: true, tools: `[{"name":"boom","inputSchema":{"type":"object"}}]`, crashOnCall: true}},
	)
	assert.Equal(t, []string{"alpha__search", "boom", "dup", "odd__search"}, c.names(t))

	assert.Equal(t, "resource_unavailable", envelopeCode(t, c.call(t, "odd__search", "x")), "a call never answered")
	assert.Equal(t, "resource_unavailable", envelopeCode(t, c.call(t, "boom", "x")), "a server that dies mid-call")
	assert.Equal(t, "resource_unavailable", envelopeCode(t, c.call(t, "boom", "x")), "a server that died")
	assert.Equal(t, `alpha answered search(query="x")`, resultText(c.call(t, "alpha__search", "x")))
}

// TestTooManyTools: a server that lists more than maxTools tools gets the
// first maxTools of them served, and the gateway keeps serving the others.
func TestTooManyTools(t *testing.T) {
	tools := make([]string, maxTools+1)
	for i := range tools {
		tools[i] = fmt.Sprintf(`{"name":"t%04d","inputSchema":{"type":"object"}}`, i)
	}
	_, c := startGateway(t, config{},
		inProcessServer("alpha", "search"),
		downstreamSpec{"many", scripted{answersInitialize: true, tools: "[" + strings.Join(tools, ",") + "]"}},
	)
	names := c.names(t)
	require.Len(t, names, maxTools+1, "alpha's search and maxTools of many's")
	assert.Equal(t, "search", names[0])
	assert.NotContains(t, names, fmt.Sprintf("t%04d", maxTools))
}

// TestListChangedFlood: a server that sends a flood of tools/list_changed
// is relisted one change at a time, never with a request per notification
// in flight at once; and as its tools do not change, nothing is saved and
// the client is told nothing.
func TestListChangedFlood(t *testing.T) {
	const flood = 500
	lists := new(listings)
	store := &flakyStore{Store: fileStore(t, filepath.Join(t.TempDir(), "names.json"))}
	_, c := startGateway(t, config{store: store},
		downstreamSpec{"noisy", scripted{answersInitialize: true, tools: `[{"name":"search","inputSchema":{"type":"object"}}]`, floodChanged: flood, lists: lists}},
	)
	assert.Equal(t, []string{"search"}, c.names(t))
	// The first listing, and at least one for the notifications.
	require.Eventually(t, func() bool { total, _ := lists.counts(); return total >= 2 }, testTimeout, 10*time.Millisecond)
	total, maxOpen := lists.counts()
	assert.Equal(t, 1, maxOpen, "tools/list requests in flight at once (%d in all, for %d notifications)", total, flood)
	assert.Equal(t, int64(1), store.swaps.Load(), "only the first table is stored")
	select {
	case <-c.changed:
		t.Error("the client was told of a change that changed nothing")
	case <-time.After(200 * time.Millisecond):
	}
}

func TestCallErrors(t *testing.T) {
	_, c := startGateway(t, config{}, inProcessServer("alpha", "search"))
	for _, tt := range []struct {
		name string
		args any
		code string
	}{
		{"array arguments", []int{1, 2}, "invalid_arguments"},
		{"string arguments", "query", "invalid_arguments"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search", Arguments: tt.args})
			require.NoError(t, err)
			assert.Equal(t, tt.code, envelopeCode(t, res))
		})
	}
	t.Run("no arguments", func(t *testing.T) {
		res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search"})
		require.NoError(t, err)
		assert.Equal(t, `alpha answered search(query="")`, resultText(res))
	})
	assert.True(t, slices.Equal([]string{"search"}, c.names(t)))
}

// TestRefusedCall: a downstream's JSON-RPC refusal of a call reaches the
// model as a call_refused tool error that quotes at most maxRefusal bytes
// of the downstream's words.
func TestRefusedCall(t *testing.T) {
	tool := `[{"name":"search","inputSchema":{"type":"object"}}]`
	_, c := startGateway(t, config{},
		downstreamSpec{"short", scripted{answersInitialize: true, tools: tool, refuseCall: "query is required"}},
		downstreamSpec{"long", scripted{answersInitialize: true, tools: tool, refuseCall: strings.Repeat("é", 10_000)}},
	)
	short := c.call(t, "short__search", "x")
	assert.Equal(t, "call_refused", envelopeCode(t, short))
	assert.Contains(t, resultText(short), `query is required`)

	long := c.call(t, "long__search", "x")
	assert.Equal(t, "call_refused", envelopeCode(t, long))
	text := resultText(long)
	assert.Less(t, len(text), 2*maxRefusal+300, "the refusal is quoted in part: %s", text)
	assert.Contains(t, text, `éé…`, "cut at a character boundary and marked")
	assert.True(t, utf8.ValidString(text))
}

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
	args := []string{"-http", "127.0.0.1:0", "-drain", "0", "-state", srv.URL, "-timeout", timeout.String()}

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

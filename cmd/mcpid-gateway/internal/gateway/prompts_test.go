package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
	"github.com/mcpid/mcpid/toolname"
)

// TestPromptChainFiles: with a state file, the prompts' names live in the
// file beside it, "<FILE>.prompts", and a restart gives every prompt its
// name back; -seed seeds both chains, and needs both files.
func TestPromptChainFiles(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "names.json")
	cfg, _ := fromArgs(t, io.Discard)
	store, closeStore, err := chainstore.Open(t.Context(), promptState(state), "mcpid/prompts")
	require.NoError(t, err)
	cfg.promptStore = store
	g, _ := startGateway(t, cfg, inProcessServer("alpha", "search"),
		downstreamSpec{name: "a", transport: inProcess{docServer("a")}})
	require.Eventually(t, func() bool { return g.kinds.ServedPrompts() == 1 }, testTimeout, 10*time.Millisecond)
	g.close()
	closeStore()
	stored, err := chainstore.ReadTable(state + promptsSuffix)
	require.NoError(t, err)
	require.NotNil(t, stored, "the prompt chain is in %s", state+promptsSuffix)
	k, err := stored.Route("summarize")
	require.NoError(t, err)
	assert.Equal(t, toolname.Key{Server: "a", Tool: "summarize"}, k)
}

// promptServer is an in-process downstream with one tool, "ping", and the
// given prompts, each of which says which server answered it.
func promptServer(name string, prompts ...string) downstreamSpec {
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "v0.1.0"}, nil)
	addEchoTool(srv, name, "ping")
	for _, p := range prompts {
		srv.AddPrompt(&mcp.Prompt{Name: p}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			text := fmt.Sprintf("%s answered %s", name, p)
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
		})
	}
	return downstreamSpec{name: name, transport: inProcess{srv}}
}

// promptNames lists the prompts the client sees, sorted.
func (c *client) promptNames(t *testing.T) []string {
	t.Helper()
	res, err := c.cs.ListPrompts(t.Context(), nil)
	require.NoError(t, err)
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}

// getPrompt gets the prompt name and returns the text of its message.
func (c *client) getPrompt(t *testing.T, name string) string {
	t.Helper()
	res, err := c.cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name})
	require.NoError(t, err)
	require.Len(t, res.Messages, 1)
	text, ok := res.Messages[0].Content.(*mcp.TextContent)
	require.True(t, ok, "a text message")
	return text.Text
}

// TestPromptBackupRefusesAFork: the prompt chain's backup is checked as
// the tools' is (TestBackupRefusesAFork): a prompt store that holds a
// table that does not continue it, even at its generation (a fork from an
// older table, or an edit by hand), is refused at start: the gateway
// serves the backup's prompt names, routes no prompts/get through the
// store and names no new prompt, until the chain is seeded again.
func TestPromptBackupRefusesAFork(t *testing.T) {
	for _, tc := range forks {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			state, backup := filepath.Join(dir, "names.json"), filepath.Join(dir, "backup.json")
			pstate, pbackup := state+promptsSuffix, backup+promptsSuffix
			alpha, beta, gamma := promptServer("alpha", "search"), promptServer("beta", "delete"), promptServer("gamma", "delete", "list")
			store, pstore := fileStore(t, state), fileStore(t, pstate)
			g, c := startGateway(t, config{store: store, promptStore: pstore, backupPath: backup}, alpha)
			require.Equal(t, []string{"search"}, c.promptNames(t))
			older := mustReadTable(t, pstate)
			require.NoError(t, g.join(t.Context(), beta))
			want := []string{"delete", "search"}
			require.Eventually(t, func() bool { return slices.Equal(want, c.promptNames(t)) }, testTimeout, 20*time.Millisecond)
			require.Eventually(t, func() bool {
				kept, err := chainstore.ReadTable(pbackup)
				return err == nil && kept != nil && nameOf(kept, toolname.Key{Server: "beta", Tool: "delete"}) == "delete"
			}, testTimeout, 20*time.Millisecond, "the prompts' backup keeps the table")
			g.close()
			require.NoError(t, store.Close())
			require.NoError(t, pstore.Close())

			tampered := tc.tamper(t, older, readFile(t, pstate))
			require.NoError(t, new(toolname.Table).UnmarshalJSON([]byte(tampered)), "a well-formed table")
			require.NoError(t, os.WriteFile(pstate, []byte(tampered), 0o600))
			store, pstore = fileStore(t, state), fileStore(t, pstate)
			logs := new(syncbuf.Buffer)
			cfg := config{store: store, promptStore: pstore, backupPath: backup, startTimeout: 300 * time.Millisecond, logger: slog.New(slog.NewTextHandler(logs, nil))}
			g, c = startGateway(t, cfg, alpha, beta, gamma)
			require.Eventually(t, func() bool { return livePrompts(g) == 4 }, testTimeout, 20*time.Millisecond, "gamma lists its prompts")
			require.Eventually(t, func() bool { return strings.Contains(logs.String(), "does not continue") }, testTimeout, 20*time.Millisecond)
			assert.Contains(t, logs.String(), string(toolname.CodeRollback))
			assert.Equal(t, want, c.promptNames(t), "the backup's names, and no new one")
			assert.Equal(t, "beta answered delete", c.getPrompt(t, "delete"), "delete is beta's, as the backup says")
			_, err := c.cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "list"})
			require.ErrorContains(t, err, `no prompt is named "list"`, "the refused table routes nothing")
			assert.Equal(t, tampered, readFile(t, pstate), "nothing is written over a refused table")
			assert.Equal(t, "delete", nameOf(mustReadTable(t, pbackup), toolname.Key{Server: "beta", Tool: "delete"}), "the backup keeps the chain")

			// Put back on purpose: the chain emptied, the backup seeded.
			require.NoError(t, os.Remove(pstate))
			require.NoError(t, seed(t.Context(), pstore, pbackup, testTimeout))
			g.kinds.PromptsChanged()
			require.Eventually(t, func() bool { return len(c.promptNames(t)) == 4 }, testTimeout, 20*time.Millisecond,
				"the gateway names prompts once the store holds the chain")
			assert.Equal(t, []string{"delete", "gamma__delete", "list", "search"}, c.promptNames(t))
			assert.Equal(t, "beta answered delete", c.getPrompt(t, "delete"))
			assert.Equal(t, "gamma answered list", c.getPrompt(t, "list"))
		})
	}
}

// promptChainTable stores, in the prompt chain beside state, a table of
// the default naming options (-profile portable, -qualify collision).
func promptChainTable(t *testing.T, state string) *toolname.Table {
	t.Helper()
	store := fileStore(t, state+promptsSuffix)
	names, _, err := toolname.Update(t.Context(), store, toolname.Portable, chainKeys)
	require.NoError(t, err)
	require.NoError(t, store.Close())
	return names
}

// TestPromptChainMismatchExits: a gateway process whose naming options
// differ from those its prompt chain records does not start, as with its
// tools' chain (TestMismatchedReplicaExits): it exits with status 1 and
// the chain_mismatch error, naming the prompts' chain.
func TestPromptChainMismatchExits(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	promptChainTable(t, state)
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.CommandContext(t.Context(), exe, "-http", "127.0.0.1:0", "-state", state, "-qualify", "all", "-server", "a=/bin/false")
	cmd.Env = append(os.Environ(), testGatewayEnv+"=1")
	cmd.WaitDelay = testTimeout
	done := make(chan struct{})
	var out []byte
	go func() {
		defer close(done)
		out, err = cmd.CombinedOutput()
	}()
	select {
	case <-done:
	case <-time.After(testTimeout):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the gateway serves on a prompt chain of other options:\n%s", out)
	}
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "the gateway exits with an error: %v\n%s", err, out)
	assert.Equal(t, 1, exit.ExitCode())
	assert.Contains(t, string(out), string(toolname.CodeChainMismatch))
	assert.Contains(t, string(out), "the prompts' chain in the store")
}

// TestPromptChainMismatchStops: a prompt chain that a naming round finds
// to record other naming options (none was found at start) stops the
// gateway through config.fatal, as the tools' chain does.
func TestPromptChainMismatchStops(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	names := promptChainTable(t, state)
	fatal := make(chan error, 1)
	cfg := config{promptStore: chainstore.NewMem(names), qualifyAll: true, fatal: func(err error) {
		select {
		case fatal <- err:
		default:
		}
	}}
	startGateway(t, cfg, promptServer("alpha", "search"))
	select {
	case err := <-fatal:
		require.ErrorIs(t, err, toolname.ErrChainMismatch)
		assert.ErrorContains(t, err, "the prompts' chain in the store")
	case <-time.After(testTimeout):
		t.Fatal("the gateway names on a prompt chain of other options")
	}
}

// TestPromptLookupMisses: a prompts/get of a name this replica does not
// serve is looked up in the prompt store, and a miss is remembered (see
// misses), as for a called tool name.
func TestPromptLookupMisses(t *testing.T) {
	g, c := startGateway(t, config{}, promptServer("alpha", "search"))
	require.Equal(t, []string{"search"}, c.promptNames(t))
	_, err := c.cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "guessed"})
	require.ErrorContains(t, err, `no prompt is named "guessed"`)
	assert.True(t, g.kinds.PromptChain().Missed("guessed", time.Now()), "the miss is remembered")
	assert.False(t, g.tools.Missed("guessed", time.Now()), "in the prompt chain only")
}

// livePrompts returns how many prompts g's downstreams list now.
func livePrompts(g *gateway) int {
	n := 0
	for _, d := range g.downstreamList() {
		d.More.Mu.Lock()
		n += len(d.More.Prompts)
		d.More.Mu.Unlock()
	}
	return n
}

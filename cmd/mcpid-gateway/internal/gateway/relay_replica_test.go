package gateway

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpid/mcpid/internal/testkit/syncbuf"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/toolname"
)

// testDocServerEnv is the variable that makes the test binary a go-sdk
// downstream over stdio (see docServer), named by its value.
const testDocServerEnv = "GATEWAY_TEST_DOCSERVER"

// TestRelayReplicas: three gateway processes share one Redis store, each
// over two downstream processes of its own that both serve
// file:///README.md and a prompt named summarize. Every replica lists the
// same prompt names, which the chain "<chain>/prompts" holds, and on every
// replica each prompt name, each URI form and each link in a tool result
// (followed on another replica) reaches the downstream it was listed for.
func TestRelayReplicas(t *testing.T) {
	srv := dbserver.StartRedis(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	var sessions [3]*mcp.ClientSession
	for i := range sessions {
		args := []string{"-stdio", "-state", srv.URL, "-chain", "relay",
			"-backup", filepath.Join(dir, fmt.Sprintf("r%d-backup.json", i)), "-timeout", "10s", "-start-timeout", "2s"}
		for _, s := range []string{"a", "b"} {
			args = append(args, "-server", s+"='"+exe+"'", "-env", s+"="+testDocServerEnv+"="+s)
		}
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), testGatewayEnv+"=1")
		stderr := new(syncbuf.Buffer)
		cmd.Stderr = stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "relay-replicas", Version: "v0"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
		require.NoError(t, err)
		t.Cleanup(func() {
			_ = cs.Close()
			if t.Failed() {
				t.Logf("replica %d's log:\n%s", i, stderr.String())
			}
		})
		sessions[i] = cs
	}

	// Each replica lists both prompts, under names every replica agrees on.
	server := map[string]string{} // prompt name -> the downstream it reached on the first replica
	for i, cs := range sessions {
		var names []string
		require.Eventually(t, func() bool {
			names = names[:0]
			for p, err := range cs.Prompts(t.Context(), nil) {
				if err != nil {
					return false
				}
				names = append(names, p.Name)
			}
			return len(names) == 2
		}, testTimeout, 20*time.Millisecond, "replica %d lists %v", i, &names)
		for _, name := range names {
			res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name, Arguments: map[string]string{"topic": "x"}})
			require.NoError(t, err)
			who, _, _ := strings.Cut(res.Messages[0].Content.(*mcp.TextContent).Text, " ")
			if prev, ok := server[name]; ok {
				assert.Equal(t, prev, who, "replica %d routes %q to another downstream", i, name)
			}
			server[name] = who
		}
	}
	whos := []string{}
	for _, who := range server {
		whos = append(whos, who)
	}
	slices.Sort(whos)
	assert.Equal(t, []string{"a", "b"}, whos, "one name per downstream's prompt: %v", server)

	stored, _, err := openRedis(t, srv.URL, "relay/prompts").Load(t.Context())
	require.NoError(t, err)
	for name, who := range server {
		k, err := stored.Route(name)
		require.NoError(t, err)
		assert.Equal(t, toolname.Key{Server: who, Tool: "summarize"}, k)
	}

	// Every prompt name, URI form and link, on every replica.
	for i, cs := range sessions {
		for name, who := range server {
			res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name, Arguments: map[string]string{"topic": "y"}})
			require.NoError(t, err)
			assert.Equal(t, who+" summarizes y", res.Messages[0].Content.(*mcp.TextContent).Text, "replica %d, prompt %q", i, name)
			assert.Equal(t, "mcpid:"+who+":file:///README.md", res.Messages[1].Content.(*mcp.EmbeddedResource).Resource.URI)
		}
		for _, s := range []string{"a", "b"} {
			text, _ := readText(t, cs, "mcpid:"+s+":file:///README.md")
			assert.Equal(t, s+"'s README", text, "replica %d", i)
			text, _ = readText(t, cs, "mcpid:"+s+":file:///docs/guide")
			assert.Equal(t, s+"'s guide", text, "replica %d", i)
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: s + "__link", Arguments: map[string]any{}})
			require.NoError(t, err)
			link := res.Content[0].(*mcp.ResourceLink).URI
			// Followed on the next replica.
			text, _ = readText(t, sessions[(i+1)%len(sessions)], link)
			assert.Equal(t, s+"'s README", text, "a link from replica %d", i)
		}
		_, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///README.md"})
		require.Error(t, err)
	}
}

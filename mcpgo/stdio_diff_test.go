package mcpgo_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/mcpgo"
)

// answers serves line on mcp-go's stdio server, through serve, and returns
// the JSON-RPC messages it writes, decoded.
func answers(t *testing.T, serve func(ctx context.Context, s *server.MCPServer, in *strings.Reader, out *bytes.Buffer) error, line string) []map[string]json.RawMessage {
	s := server.NewMCPServer("diff", "v0")
	var out bytes.Buffer
	require.NoError(t, serve(context.Background(), s, strings.NewReader(line+"\n"), &out))
	var msgs []map[string]json.RawMessage
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		msgs = append(msgs, m)
	}
	return msgs
}

// TestStdioGuardAgreesWithMCPGo is the differential of ServeStdio against
// mcp-go's own stdio server over mutations of real messages: every line
// that mcp-go answers with a result, under an id JSON-RPC allows, is
// answered the same behind the guard, and no line gets more than one
// answer. The one exception is a line whose envelope repeats a key, as
// encoding/json matches keys, which mcp-go serves (running the last
// value) and the guard refuses. (The guard's own other rules,
// batches, depth and size, are not in the mutations.)
func TestStdioGuardAgreesWithMCPGo(t *testing.T) {
	raw := func(ctx context.Context, s *server.MCPServer, in *strings.Reader, out *bytes.Buffer) error {
		return server.NewStdioServer(s).Listen(ctx, in, out)
	}
	guarded := func(ctx context.Context, s *server.MCPServer, in *strings.Reader, out *bytes.Buffer) error {
		return mcpgo.ServeStdio(ctx, s, in, out)
	}
	counts := map[string]int{}
	for _, line := range adaptertest.MutatedLines(1500) {
		want := answers(t, raw, line)
		got := answers(t, guarded, line)
		if adaptertest.RepeatsKey(line, true) {
			// Refused: at most an error answers it (a response, which
			// JSON-RPC never answers, gets none).
			require.LessOrEqual(t, len(got), 1, "%q: one answer at most", line)
			for _, a := range got {
				assert.Nil(t, a["result"], "%q: the envelope repeats a key, mcp-go serves it", line)
				assert.NotNil(t, a["error"], "%q", line)
			}
			counts["the envelope repeats a key: the guard refuses it"]++
			continue
		}
		if len(want) == 1 && want[0]["result"] != nil && allowedID(want[0]["id"]) {
			require.Len(t, got, 1, "%q: mcp-go answers it, the guard does not pass it on", line)
			assert.JSONEq(t, string(want[0]["result"]), string(got[0]["result"]), "%q", line)
			assert.JSONEq(t, string(want[0]["id"]), string(got[0]["id"]), "%q", line)
			counts["answered alike"]++
			continue
		}
		counts["mcp-go answers no result"]++
		require.LessOrEqual(t, len(got), 1, "%q: one answer at most", line)
	}
	t.Log(counts)
	assert.Positive(t, counts["answered alike"])
	assert.Positive(t, counts["mcp-go answers no result"])
	assert.Positive(t, counts["the envelope repeats a key: the guard refuses it"])
}

// errorCode returns the code of the error that msg, an answer, carries;
// nil without one.
func errorCode(msg map[string]json.RawMessage) json.RawMessage {
	var e struct {
		Code json.RawMessage `json:"code"`
	}
	_ = json.Unmarshal(msg["error"], &e)
	return e.Code
}

// TestStdioRepeatedKeyFolded: mcp-go matches envelope keys as
// encoding/json does, case-insensitively, so "Method" after "method" sets
// the method it runs; ServeStdio refuses the line with -32600 under its
// id.
func TestStdioRepeatedKeyFolded(t *testing.T) {
	guarded := func(ctx context.Context, s *server.MCPServer, in *strings.Reader, out *bytes.Buffer) error {
		return mcpgo.ServeStdio(ctx, s, in, out)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","Method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","j\u017fonrpc":"2.0"}`,
	} {
		got := answers(t, guarded, line)
		require.Len(t, got, 1, "%q", line)
		assert.JSONEq(t, `-32600`, string(errorCode(got[0])), "%q", line)
		assert.JSONEq(t, `1`, string(got[0]["id"]), "%q", line)
	}
}

// allowedID reports whether id is an id JSON-RPC allows: a string, a
// number or null.
func allowedID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case nil, string, float64:
		return true
	}
	return false
}

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/internal/testkit/cmdtest"
)

// TestHTTPMode: the command run with -http serves the demo servers' tools
// over streamable HTTP, the SDK's client sees their names and has a call
// routed, and the command stops cleanly when its context ends. The bounds
// of the HTTP server are tested with the serve package.
func TestHTTPMode(t *testing.T) {
	endpoint := cmdtest.StartHTTP(t, func(ctx context.Context, stderr io.Writer) error {
		return Run(ctx, []string{"-http", "127.0.0.1:0", "-drain", "0"}, io.Discard, stderr) // -drain 0: stopped at once
	})
	mc := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0"}, nil)
	cs, err := mc.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()
	names, err := listNames(t.Context(), cs)
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha__search", "beta__search", "create_issue", "fetch"}, names)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "beta__search", Arguments: map[string]any{"query": "q"}})
	require.NoError(t, err)
	assert.Equal(t, `beta answered search(query="q")`, resultText(res))
}

// rawClient speaks JSON-RPC over HTTP to a gateway as curl does: one POST
// a request, with the headers a client of the protocol version sends.
type rawClient struct {
	t       *testing.T
	url     string
	version string
	session string // Mcp-Session-Id, once a stateful 2025-11-25 session is open
}

// rawAnswer is the JSON-RPC answer to one request.
type rawAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// post sends one JSON-RPC message and returns the answer to it, nil for a
// notification; the HTTP status is returned too.
func (c *rawClient) post(body string) (*rawAnswer, int) {
	c.t.Helper()
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	require.NoError(c.t, json.Unmarshal([]byte(body), &msg))
	req, err := http.NewRequestWithContext(c.t.Context(), http.MethodPost, c.url, strings.NewReader(body))
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.version != "" && msg.Method != "initialize" {
		req.Header.Set("Mcp-Protocol-Version", c.version)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	if c.version >= "2026-07-28" {
		// The standard headers of 2026-07-28: the method, and the name
		// a request routes by, as the body has them.
		req.Header.Set("Mcp-Method", msg.Method)
		var p struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		}
		_ = json.Unmarshal(msg.Params, &p)
		if name := p.Name + p.URI; name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.session = sid
	}
	data, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	if len(msg.ID) == 0 {
		return nil, resp.StatusCode
	}
	// The answer, alone or as one event of a stream (among the
	// notifications of the request).
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimPrefix(line, []byte("data: "))
		var a struct {
			ID json.RawMessage `json:"id"`
			rawAnswer
		}
		if json.Unmarshal(line, &a) == nil && bytes.Equal(a.ID, msg.ID) {
			return &a.rawAnswer, resp.StatusCode
		}
	}
	// Refused before it reached the MCP server: the Streamable HTTP
	// transport answers input it cannot accept with an HTTP error status
	// alone.
	require.GreaterOrEqual(c.t, resp.StatusCode, 400, "%s: no answer in %d %q", body, resp.StatusCode, data)
	return nil, resp.StatusCode
}

// v2026Meta is the _meta every request of MCP 2026-07-28 carries in its
// params: the version, and the client's capabilities.
const v2026Meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// served is every method the gateway serves, with the members a request
// of it needs (the rest of the params are optional), and what of its
// result the matrix compares.
var served = []struct {
	method   string
	versions []string // the versions that have it; nil for both
	members  string   // the params' required members, as JSON object members
	digest   func(map[string]any) string
}{
	{"initialize", []string{"2025-11-25"}, `"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"0"}`,
		func(r map[string]any) string { return fmt.Sprint(r["protocolVersion"]) }},
	{"server/discover", []string{"2026-07-28"}, ``, func(r map[string]any) string { return fmt.Sprint(keys(r["capabilities"])) }},
	{"ping", nil, ``, func(r map[string]any) string { return fmt.Sprint(keys(r)) }},
	{"tools/list", nil, ``, field("tools", "name")},
	{"tools/call", nil, `"name":"touch","arguments":{}`, field("content", "text")},
	{"prompts/list", nil, ``, field("prompts", "name")},
	{"prompts/get", nil, `"name":"summarize","arguments":{"topic":"ids"}`, func(r map[string]any) string {
		return fmt.Sprint(r["messages"].([]any)[0].(map[string]any)["content"].(map[string]any)["text"])
	}},
	{"resources/list", nil, ``, field("resources", "uri")},
	{"resources/templates/list", nil, ``, field("resourceTemplates", "uriTemplate")},
	{"resources/read", nil, `"uri":"file:///README.md"`, field("contents", "text")},
	{"resources/subscribe", nil, `"uri":"file:///README.md"`, func(r map[string]any) string { return fmt.Sprint(keys(r)) }},
	{"resources/unsubscribe", nil, `"uri":"file:///README.md"`, func(r map[string]any) string { return fmt.Sprint(keys(r)) }},
	{"completion/complete", nil, `"ref":{"type":"ref/prompt","name":"summarize"},"argument":{"name":"topic","value":"i"}`, func(r map[string]any) string {
		return fmt.Sprint(r["completion"].(map[string]any)["values"])
	}},
	{"logging/setLevel", []string{"2025-11-25"}, `"level":"debug"`, func(r map[string]any) string { return fmt.Sprint(keys(r)) }},
}

// field returns a digest of a listing: the member name of each item of
// the array list.
func field(list, name string) func(map[string]any) string {
	return func(r map[string]any) string {
		var got []string
		items, _ := r[list].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			got = append(got, fmt.Sprint(m[name]))
		}
		return strings.Join(got, " ")
	}
}

// keys returns the members of a JSON object, sorted.
func keys(v any) []string {
	m, _ := v.(map[string]any)
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestParamsMatrix: every method the gateway serves, with params absent,
// null, {} and with members it does not know, on a stateful and a
// -stateless gateway, on MCP 2025-11-25 and 2026-07-28, sent as raw
// JSON-RPC over HTTP as curl sends it, answers as the protocol says: a
// method whose params are optional answers as with {}, one that needs them
// answers an error naming the fault, and unknown members are ignored.
// The official TypeScript client sends tools/list, prompts/list and ping
// without params: that once panicked a -stateless gateway.
func TestParamsMatrix(t *testing.T) {
	cells := 0
	for _, stateless := range []bool{false, true} {
		g, _ := startGateway(t, config{stateless: stateless}, downstreamSpec{name: "docs", transport: inProcess{docServer("docs")}})
		hs := httptest.NewServer(g.handler(serve.DefaultLimits, stateless))
		t.Cleanup(hs.Close)
		for _, version := range []string{"2025-11-25", "2026-07-28"} {
			c := &rawClient{t: t, url: hs.URL + "/mcp", version: version}
			if version == "2025-11-25" {
				a, _ := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`)
				require.Nil(t, a.Error)
				c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			meta := ""
			if version == "2026-07-28" {
				meta = v2026Meta
			}
			for _, m := range served {
				if m.versions != nil && !slices.Contains(m.versions, version) {
					continue
				}
				for _, variant := range []struct{ name, params string }{
					{"absent", ""},
					{"null", `,"params":null`},
					{"{}", `,"params":{` + meta + `}`},
					{"unknown", `,"params":{` + strings.Join(slices.DeleteFunc([]string{meta, m.members, `"x-unknown":{"deep":[1]}`}, func(s string) bool { return s == "" }), ",") + `}`},
				} {
					cells++
					c := c
					if m.method == "initialize" {
						c = &rawClient{t: t, url: c.url, version: version} // a session's first request
					}
					a, status := c.post(`{"jsonrpc":"2.0","id":7,"method":"` + m.method + `"` + variant.params + `}`)
					got := ""
					switch {
					case a == nil:
						got = fmt.Sprintf("http %d", status)
					case a.Error != nil:
						got = fmt.Sprintf("error %d", a.Error.Code)
					default:
						var r map[string]any
						require.NoError(t, json.Unmarshal(a.Result, &r))
						got = m.digest(r)
					}
					mode := "stateful"
					if stateless {
						mode = "stateless"
					}
					key := matrixCell{mode, version, m.method, variant.name}
					want, ok := paramsAnswers[key]
					require.True(t, ok, "no answer is given for %v", key)
					assert.Equal(t, want, got, "%v", key)
				}
			}
		}
	}
	assert.Equal(t, len(paramsAnswers), cells, "every cell of the matrix ran")
}

// matrixCell is one cell of TestParamsMatrix: the gateway's mode, the
// protocol version, the method, and its params.
type matrixCell struct{ mode, version, method, params string }

// paramsAnswers is the answer of each cell: the digest of a result (see
// served), "error CODE" for a JSON-RPC error, or "http STATUS" for a
// request the Streamable HTTP transport refuses before it reaches the
// MCP server (the transport says so with an HTTP status; the protocol
// lets it). The errors are the protocol's:
//   - a method that needs params answers -32600 without them, or
//     -32602 when a member it needs is missing (but for tools/call, whose
//     missing name is a name that routes to no tool: unknown_tool);
//   - a -stateless gateway refuses subscriptions with -32600 (they would
//     need a session);
//   - on 2026-07-28, a request without the _meta that version puts in
//     every request is -32602, one without the Mcp-Name header of the
//     name it routes by -32020, ping and resources/subscribe are methods
//     of earlier versions (-32601), and a stateful gateway, whose
//     sessions are of earlier versions, answers -32022 (unsupported
//     protocol version) so that the client speaks one of them;
//   - initialize with "params": null is answered with code 0 by the
//     SDK itself, before any code of the gateway runs.
var paramsAnswers = map[matrixCell]string{
	{"stateful", "2025-11-25", "initialize", "absent"}:                 "http 400",
	{"stateful", "2025-11-25", "initialize", "null"}:                   "error 0", // handling 'initialize': missing required "params"
	{"stateful", "2025-11-25", "initialize", "{}"}:                     "2025-11-25",
	{"stateful", "2025-11-25", "initialize", "unknown"}:                "2025-11-25",
	{"stateful", "2025-11-25", "ping", "absent"}:                       "[]",
	{"stateful", "2025-11-25", "ping", "null"}:                         "[]",
	{"stateful", "2025-11-25", "ping", "{}"}:                           "[]",
	{"stateful", "2025-11-25", "ping", "unknown"}:                      "[]",
	{"stateful", "2025-11-25", "tools/list", "absent"}:                 "link touch",
	{"stateful", "2025-11-25", "tools/list", "null"}:                   "link touch",
	{"stateful", "2025-11-25", "tools/list", "{}"}:                     "link touch",
	{"stateful", "2025-11-25", "tools/list", "unknown"}:                "link touch",
	{"stateful", "2025-11-25", "tools/call", "absent"}:                 "http 400",
	{"stateful", "2025-11-25", "tools/call", "null"}:                   "error -32600", // handling 'tools/call': invalid request: missing required "params"
	{"stateful", "2025-11-25", "tools/call", "{}"}:                     `{"type":"adapter_error","code":"unknown_tool","message":"no tool is named \"\"","hint":"list the tools again and call one by its listed name"}`,
	{"stateful", "2025-11-25", "tools/call", "unknown"}:                "touched",
	{"stateful", "2025-11-25", "prompts/list", "absent"}:               "summarize",
	{"stateful", "2025-11-25", "prompts/list", "null"}:                 "summarize",
	{"stateful", "2025-11-25", "prompts/list", "{}"}:                   "summarize",
	{"stateful", "2025-11-25", "prompts/list", "unknown"}:              "summarize",
	{"stateful", "2025-11-25", "prompts/get", "absent"}:                "http 400",
	{"stateful", "2025-11-25", "prompts/get", "null"}:                  "error -32600", // handling 'prompts/get': invalid request: missing required "params"
	{"stateful", "2025-11-25", "prompts/get", "{}"}:                    "error -32602", // no prompt is named ""
	{"stateful", "2025-11-25", "prompts/get", "unknown"}:               "docs summarizes ids",
	{"stateful", "2025-11-25", "resources/list", "absent"}:             "file:///README.md",
	{"stateful", "2025-11-25", "resources/list", "null"}:               "file:///README.md",
	{"stateful", "2025-11-25", "resources/list", "{}"}:                 "file:///README.md",
	{"stateful", "2025-11-25", "resources/list", "unknown"}:            "file:///README.md",
	{"stateful", "2025-11-25", "resources/templates/list", "absent"}:   "file:///docs/{name}",
	{"stateful", "2025-11-25", "resources/templates/list", "null"}:     "file:///docs/{name}",
	{"stateful", "2025-11-25", "resources/templates/list", "{}"}:       "file:///docs/{name}",
	{"stateful", "2025-11-25", "resources/templates/list", "unknown"}:  "file:///docs/{name}",
	{"stateful", "2025-11-25", "resources/read", "absent"}:             "http 400",
	{"stateful", "2025-11-25", "resources/read", "null"}:               "error -32600", // handling 'resources/read': invalid request: missing required "params"
	{"stateful", "2025-11-25", "resources/read", "{}"}:                 "error -32602", // calling "resources/read": Resource not found
	{"stateful", "2025-11-25", "resources/read", "unknown"}:            "docs's README",
	{"stateful", "2025-11-25", "resources/subscribe", "absent"}:        "http 400",
	{"stateful", "2025-11-25", "resources/subscribe", "null"}:          "error -32600", // handling 'resources/subscribe': invalid request: missing required "params"
	{"stateful", "2025-11-25", "resources/subscribe", "{}"}:            "[]",
	{"stateful", "2025-11-25", "resources/subscribe", "unknown"}:       "[]",
	{"stateful", "2025-11-25", "resources/unsubscribe", "absent"}:      "http 400",
	{"stateful", "2025-11-25", "resources/unsubscribe", "null"}:        "error -32600", // handling 'resources/unsubscribe': invalid request: missing required "params"
	{"stateful", "2025-11-25", "resources/unsubscribe", "{}"}:          "[]",
	{"stateful", "2025-11-25", "resources/unsubscribe", "unknown"}:     "[]",
	{"stateful", "2025-11-25", "completion/complete", "absent"}:        "http 400",
	{"stateful", "2025-11-25", "completion/complete", "null"}:          "error -32600", // handling 'completion/complete': invalid request: missing required "params"
	{"stateful", "2025-11-25", "completion/complete", "{}"}:            "error -32602", // invalid params: missing required 'ref' field
	{"stateful", "2025-11-25", "completion/complete", "unknown"}:       "[docs completes summarize]",
	{"stateful", "2025-11-25", "logging/setLevel", "absent"}:           "http 400",
	{"stateful", "2025-11-25", "logging/setLevel", "null"}:             "error -32600", // handling 'logging/setLevel': invalid request: missing required "params"
	{"stateful", "2025-11-25", "logging/setLevel", "{}"}:               "[]",
	{"stateful", "2025-11-25", "logging/setLevel", "unknown"}:          "[]",
	{"stateful", "2026-07-28", "server/discover", "absent"}:            "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateful", "2026-07-28", "server/discover", "null"}:              "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateful", "2026-07-28", "server/discover", "{}"}:                "[completions logging prompts resources tools]",
	{"stateful", "2026-07-28", "server/discover", "unknown"}:           "[completions logging prompts resources tools]",
	{"stateful", "2026-07-28", "ping", "absent"}:                       "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "ping", "null"}:                         "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "ping", "{}"}:                           "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "ping", "unknown"}:                      "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "tools/list", "absent"}:                 "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "tools/list", "null"}:                   "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "tools/list", "{}"}:                     "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "tools/list", "unknown"}:                "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "tools/call", "absent"}:                 "http 400",
	{"stateful", "2026-07-28", "tools/call", "null"}:                   "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "tools/call", "{}"}:                     "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "tools/call", "unknown"}:                "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "prompts/list", "absent"}:               "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "prompts/list", "null"}:                 "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "prompts/list", "{}"}:                   "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "prompts/list", "unknown"}:              "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "prompts/get", "absent"}:                "http 400",
	{"stateful", "2026-07-28", "prompts/get", "null"}:                  "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "prompts/get", "{}"}:                    "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "prompts/get", "unknown"}:               "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/list", "absent"}:             "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/list", "null"}:               "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/list", "{}"}:                 "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/list", "unknown"}:            "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/templates/list", "absent"}:   "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/templates/list", "null"}:     "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/templates/list", "{}"}:       "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/templates/list", "unknown"}:  "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/read", "absent"}:             "http 400",
	{"stateful", "2026-07-28", "resources/read", "null"}:               "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/read", "{}"}:                 "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/read", "unknown"}:            "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/subscribe", "absent"}:        "http 400",
	{"stateful", "2026-07-28", "resources/subscribe", "null"}:          "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/subscribe", "{}"}:            "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/subscribe", "unknown"}:       "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/unsubscribe", "absent"}:      "http 400",
	{"stateful", "2026-07-28", "resources/unsubscribe", "null"}:        "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/unsubscribe", "{}"}:          "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "resources/unsubscribe", "unknown"}:     "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "completion/complete", "absent"}:        "http 400",
	{"stateful", "2026-07-28", "completion/complete", "null"}:          "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "completion/complete", "{}"}:            "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateful", "2026-07-28", "completion/complete", "unknown"}:       "error -32022", // protocol version "2026-07-28" is not supported by this server
	{"stateless", "2025-11-25", "initialize", "absent"}:                "http 400",
	{"stateless", "2025-11-25", "initialize", "null"}:                  "error 0", // handling 'initialize': missing required "params"
	{"stateless", "2025-11-25", "initialize", "{}"}:                    "2025-11-25",
	{"stateless", "2025-11-25", "initialize", "unknown"}:               "2025-11-25",
	{"stateless", "2025-11-25", "ping", "absent"}:                      "[]",
	{"stateless", "2025-11-25", "ping", "null"}:                        "[]",
	{"stateless", "2025-11-25", "ping", "{}"}:                          "[]",
	{"stateless", "2025-11-25", "ping", "unknown"}:                     "[]",
	{"stateless", "2025-11-25", "tools/list", "absent"}:                "link touch",
	{"stateless", "2025-11-25", "tools/list", "null"}:                  "link touch",
	{"stateless", "2025-11-25", "tools/list", "{}"}:                    "link touch",
	{"stateless", "2025-11-25", "tools/list", "unknown"}:               "link touch",
	{"stateless", "2025-11-25", "tools/call", "absent"}:                "http 400",
	{"stateless", "2025-11-25", "tools/call", "null"}:                  "error -32600", // handling 'tools/call': invalid request: missing required "params"
	{"stateless", "2025-11-25", "tools/call", "{}"}:                    `{"type":"adapter_error","code":"unknown_tool","message":"no tool is named \"\"","hint":"list the tools again and call one by its listed name"}`,
	{"stateless", "2025-11-25", "tools/call", "unknown"}:               "touched",
	{"stateless", "2025-11-25", "prompts/list", "absent"}:              "summarize",
	{"stateless", "2025-11-25", "prompts/list", "null"}:                "summarize",
	{"stateless", "2025-11-25", "prompts/list", "{}"}:                  "summarize",
	{"stateless", "2025-11-25", "prompts/list", "unknown"}:             "summarize",
	{"stateless", "2025-11-25", "prompts/get", "absent"}:               "http 400",
	{"stateless", "2025-11-25", "prompts/get", "null"}:                 "error -32600", // handling 'prompts/get': invalid request: missing required "params"
	{"stateless", "2025-11-25", "prompts/get", "{}"}:                   "error -32602", // no prompt is named ""
	{"stateless", "2025-11-25", "prompts/get", "unknown"}:              "docs summarizes ids",
	{"stateless", "2025-11-25", "resources/list", "absent"}:            "file:///README.md",
	{"stateless", "2025-11-25", "resources/list", "null"}:              "file:///README.md",
	{"stateless", "2025-11-25", "resources/list", "{}"}:                "file:///README.md",
	{"stateless", "2025-11-25", "resources/list", "unknown"}:           "file:///README.md",
	{"stateless", "2025-11-25", "resources/templates/list", "absent"}:  "file:///docs/{name}",
	{"stateless", "2025-11-25", "resources/templates/list", "null"}:    "file:///docs/{name}",
	{"stateless", "2025-11-25", "resources/templates/list", "{}"}:      "file:///docs/{name}",
	{"stateless", "2025-11-25", "resources/templates/list", "unknown"}: "file:///docs/{name}",
	{"stateless", "2025-11-25", "resources/read", "absent"}:            "http 400",
	{"stateless", "2025-11-25", "resources/read", "null"}:              "error -32600", // handling 'resources/read': invalid request: missing required "params"
	{"stateless", "2025-11-25", "resources/read", "{}"}:                "error -32602", // calling "resources/read": Resource not found
	{"stateless", "2025-11-25", "resources/read", "unknown"}:           "docs's README",
	{"stateless", "2025-11-25", "resources/subscribe", "absent"}:       "http 400",
	{"stateless", "2025-11-25", "resources/subscribe", "null"}:         "error -32600", // handling 'resources/subscribe': invalid request: missing required "params"
	{"stateless", "2025-11-25", "resources/subscribe", "{}"}:           "error -32600", // this gateway serves each request by itself (-stateless): resource subscriptions are not available; read the resource again instead
	{"stateless", "2025-11-25", "resources/subscribe", "unknown"}:      "error -32600", // this gateway serves each request by itself (-stateless): resource subscriptions are not available; read the resource again instead
	{"stateless", "2025-11-25", "resources/unsubscribe", "absent"}:     "http 400",
	{"stateless", "2025-11-25", "resources/unsubscribe", "null"}:       "error -32600", // handling 'resources/unsubscribe': invalid request: missing required "params"
	{"stateless", "2025-11-25", "resources/unsubscribe", "{}"}:         "error -32600", // this gateway serves each request by itself (-stateless): resource subscriptions are not available; read the resource again instead
	{"stateless", "2025-11-25", "resources/unsubscribe", "unknown"}:    "error -32600", // this gateway serves each request by itself (-stateless): resource subscriptions are not available; read the resource again instead
	{"stateless", "2025-11-25", "completion/complete", "absent"}:       "http 400",
	{"stateless", "2025-11-25", "completion/complete", "null"}:         "error -32600", // handling 'completion/complete': invalid request: missing required "params"
	{"stateless", "2025-11-25", "completion/complete", "{}"}:           "error -32602", // invalid params: missing required 'ref' field
	{"stateless", "2025-11-25", "completion/complete", "unknown"}:      "[docs completes summarize]",
	{"stateless", "2025-11-25", "logging/setLevel", "absent"}:          "http 400",
	{"stateless", "2025-11-25", "logging/setLevel", "null"}:            "error -32600", // handling 'logging/setLevel': invalid request: missing required "params"
	{"stateless", "2025-11-25", "logging/setLevel", "{}"}:              "[]",
	{"stateless", "2025-11-25", "logging/setLevel", "unknown"}:         "[]",
	{"stateless", "2026-07-28", "server/discover", "absent"}:           "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "server/discover", "null"}:             "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "server/discover", "{}"}:               "[completions logging prompts resources tools]",
	{"stateless", "2026-07-28", "server/discover", "unknown"}:          "[completions logging prompts resources tools]",
	{"stateless", "2026-07-28", "ping", "absent"}:                      "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "ping", "null"}:                        "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "ping", "{}"}:                          "error -32601", // method not found: "ping"
	{"stateless", "2026-07-28", "ping", "unknown"}:                     "error -32601", // method not found: "ping"
	{"stateless", "2026-07-28", "tools/list", "absent"}:                "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "tools/list", "null"}:                  "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "tools/list", "{}"}:                    "link touch",
	{"stateless", "2026-07-28", "tools/list", "unknown"}:               "link touch",
	{"stateless", "2026-07-28", "tools/call", "absent"}:                "http 400",
	{"stateless", "2026-07-28", "tools/call", "null"}:                  "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "tools/call", "{}"}:                    "error -32020", // missing required Mcp-Name header for method "tools/call"
	{"stateless", "2026-07-28", "tools/call", "unknown"}:               "touched",
	{"stateless", "2026-07-28", "prompts/list", "absent"}:              "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "prompts/list", "null"}:                "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "prompts/list", "{}"}:                  "summarize",
	{"stateless", "2026-07-28", "prompts/list", "unknown"}:             "summarize",
	{"stateless", "2026-07-28", "prompts/get", "absent"}:               "http 400",
	{"stateless", "2026-07-28", "prompts/get", "null"}:                 "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "prompts/get", "{}"}:                   "error -32020", // missing required Mcp-Name header for method "prompts/get"
	{"stateless", "2026-07-28", "prompts/get", "unknown"}:              "docs summarizes ids",
	{"stateless", "2026-07-28", "resources/list", "absent"}:            "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "resources/list", "null"}:              "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "resources/list", "{}"}:                "file:///README.md",
	{"stateless", "2026-07-28", "resources/list", "unknown"}:           "file:///README.md",
	{"stateless", "2026-07-28", "resources/templates/list", "absent"}:  "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "resources/templates/list", "null"}:    "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "resources/templates/list", "{}"}:      "file:///docs/{name}",
	{"stateless", "2026-07-28", "resources/templates/list", "unknown"}: "file:///docs/{name}",
	{"stateless", "2026-07-28", "resources/read", "absent"}:            "http 400",
	{"stateless", "2026-07-28", "resources/read", "null"}:              "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "resources/read", "{}"}:                "error -32020", // missing required Mcp-Name header for method "resources/read"
	{"stateless", "2026-07-28", "resources/read", "unknown"}:           "docs's README",
	{"stateless", "2026-07-28", "resources/subscribe", "absent"}:       "http 400",
	{"stateless", "2026-07-28", "resources/subscribe", "null"}:         "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "resources/subscribe", "{}"}:           "error -32601", // method not found: "resources/subscribe"
	{"stateless", "2026-07-28", "resources/subscribe", "unknown"}:      "error -32601", // method not found: "resources/subscribe"
	{"stateless", "2026-07-28", "resources/unsubscribe", "absent"}:     "http 400",
	{"stateless", "2026-07-28", "resources/unsubscribe", "null"}:       "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "resources/unsubscribe", "{}"}:         "error -32601", // method not found: "resources/unsubscribe"
	{"stateless", "2026-07-28", "resources/unsubscribe", "unknown"}:    "error -32601", // method not found: "resources/unsubscribe"
	{"stateless", "2026-07-28", "completion/complete", "absent"}:       "http 400",
	{"stateless", "2026-07-28", "completion/complete", "null"}:         "error -32602", // missing or invalid _meta field "io.modelcontextprotocol/protocolVersion"
	{"stateless", "2026-07-28", "completion/complete", "{}"}:           "error -32602", // invalid params: missing required 'ref' field
	{"stateless", "2026-07-28", "completion/complete", "unknown"}:      "[docs completes summarize]",
}

// alternating is a load balancer without affinity: it sends each HTTP
// request to the next replica in turn, and records which replica served
// which JSON-RPC method.
type alternating struct {
	replicas []*url.URL

	mu     sync.Mutex
	next   int
	served []string // "METHOD@replica"
}

func (a *alternating) RoundTrip(req *http.Request) (*http.Response, error) {
	a.mu.Lock()
	i := a.next % len(a.replicas)
	a.next++
	a.mu.Unlock()
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	var msg struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &msg)
	a.mu.Lock()
	a.served = append(a.served, fmt.Sprintf("%s@%d", msg.Method, i))
	a.mu.Unlock()
	r := req.Clone(req.Context())
	r.URL.Scheme, r.URL.Host, r.Host = a.replicas[i].Scheme, a.replicas[i].Host, a.replicas[i].Host
	return http.DefaultTransport.RoundTrip(r)
}

// statelessReplicas starts two gateways on one store, each over
// downstream processes of its own, serving HTTP with or without
// -stateless, and returns a client transport that alternates between
// them at every request.
func statelessReplicas(t *testing.T, stateless bool) (*alternating, mcp.Transport) {
	store := new(chainstore.Mem)
	lb := &alternating{}
	for range 2 {
		srv, env := testServer(t, "busy", "progress")
		cfg, specs := fromArgs(t, io.Discard, "-server", srv, "-env", env)
		cfg.store, cfg.stateless = store, stateless
		g, _ := startGateway(t, cfg, specs...)
		hs := httptest.NewServer(g.handler(serve.DefaultLimits, stateless))
		t.Cleanup(hs.Close)
		u, err := url.Parse(hs.URL)
		require.NoError(t, err)
		lb.replicas = append(lb.replicas, u)
	}
	return lb, &mcp.StreamableClientTransport{
		Endpoint:   lb.replicas[0].String() + "/mcp",
		HTTPClient: &http.Client{Transport: lb},
		MaxRetries: -1, DisableStandaloneSSE: true,
	}
}

// TestStatelessReplicas: two -stateless replicas on one store, behind a
// load balancer that sends every request of one conversation to the
// other replica in turn, on MCP 2026-07-28: the tools are listed on one
// and called on the other, with the logs asked in the call's _meta and
// its progress arriving. Without -stateless, the second request reaches
// a replica that does not hold the session, and fails.
func TestStatelessReplicas(t *testing.T) {
	lb, transport := statelessReplicas(t, true)
	var heard notes
	client := mcp.NewClient(&mcp.Implementation{Name: "alternating", Version: "v0"}, heard.options())
	cs, err := client.Connect(t.Context(), transport, nil)
	require.NoError(t, err)
	defer cs.Close()
	assert.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)

	for i := range 3 {
		// Listed once, then twice, then once: each replica answers
		// listings and calls, a call never on the replica that listed.
		for range 1 + i%2 {
			names, err := listNames(t.Context(), cs)
			require.NoError(t, err)
			require.Equal(t, []string{"search"}, names)
		}

		token := fmt.Sprintf("token-%d", i)
		//lint:ignore SA1019 the gateway relays logs while hosts use them
		params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}, Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
		params.SetProgressToken(token)
		res, err := cs.CallTool(t.Context(), params)
		require.NoError(t, err)
		require.Equal(t, "test answered search", resultText(res))
		want := []string{"progress " + token + " 1", "progress " + token + " 2", "log working on search"}
		assert.Equal(t, want, heard.wait(t, len(want)), "the call's progress and logs")
	}

	lb.mu.Lock()
	served := lb.served
	lb.mu.Unlock()
	t.Logf("served: %v", served)
	onReplica := map[string]map[string]bool{}
	for i, s := range served {
		method, replica, _ := strings.Cut(s, "@")
		if method == "tools/call" {
			_, listedOn, _ := strings.Cut(served[i-1], "@")
			assert.NotEqual(t, listedOn, replica, "request %d: a call on the replica that listed: %v", i, served)
		}
		if onReplica[method] == nil {
			onReplica[method] = map[string]bool{}
		}
		onReplica[method][replica] = true
	}
	assert.Len(t, onReplica["tools/list"], 2, "tools/list answered by both replicas: %v", served)
	assert.Len(t, onReplica["tools/call"], 2, "tools/call answered by both replicas: %v", served)

	t.Run("stateful", func(t *testing.T) {
		_, transport := statelessReplicas(t, false)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "alternating", Version: "v0"}, nil).Connect(t.Context(), transport, nil)
		if err == nil {
			defer cs.Close()
			_, err = listNames(t.Context(), cs)
		}
		require.Error(t, err, "a session reaches a replica that does not hold it")
	})
}

// TestStatelessRefusesSubscriptions: a stateless gateway answers a
// subscription to resources with an invalid-request error, and lets a
// listen for list changes alone through.
func TestStatelessRefusesSubscriptions(t *testing.T) {
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return &mcp.ListToolsResult{}, nil }
	h := refuseSubscriptions(next)
	for _, tt := range []struct {
		method  string
		req     mcp.Request
		refused bool
	}{
		{"resources/subscribe", &mcp.SubscribeRequest{Params: &mcp.SubscribeParams{URI: "file:///a"}}, true},
		{"resources/unsubscribe", &mcp.UnsubscribeRequest{Params: &mcp.UnsubscribeParams{URI: "file:///a"}}, true},
		{"subscriptions/listen", &mcp.ServerRequest[*mcp.SubscriptionsListenParams]{Params: &mcp.SubscriptionsListenParams{
			Notifications: &mcp.NotificationSubscriptions{ResourceSubscriptions: []string{"file:///a"}}}}, true},
		{"subscriptions/listen", &mcp.ServerRequest[*mcp.SubscriptionsListenParams]{Params: &mcp.SubscriptionsListenParams{
			Notifications: &mcp.NotificationSubscriptions{ToolsListChanged: true}}}, false},
		{"tools/list", &mcp.ListToolsRequest{Params: &mcp.ListToolsParams{}}, false},
	} {
		_, err := h(t.Context(), tt.method, tt.req)
		if !tt.refused {
			assert.NoError(t, err, tt.method)
			continue
		}
		var werr *jsonrpc.Error
		require.ErrorAs(t, err, &werr, tt.method)
		assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), werr.Code, tt.method)
	}
}

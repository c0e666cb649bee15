package searchfetch_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/economy"
	"github.com/mcpid/mcpid/searchfetch"
)

// definition is the part of a tool's definition a model reads.
type definition struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// definitionTokens returns the o200k tokens of d's compact JSON.
func definitionTokens(t *testing.T, d definition) int {
	t.Helper()
	b, err := json.Marshal(d)
	require.NoError(t, err)
	var compact bytes.Buffer
	require.NoError(t, json.Compact(&compact, b))
	return int(economy.TokensPerID(t, compact.String(), 1))
}

// The two tools of a Grafana-shaped server, as its maintainer wrote them:
// their names, descriptions and plain input schemas.
var (
	grafanaSearch = definition{
		Name:        "search_dashboards",
		Description: "Search for Grafana dashboards by a query string. Returns a list of matching dashboards with details like title, UID, folder, tags, and URL.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"query":{"type":"string","description":"The query to search for"},` +
			`"limit":{"type":"integer","description":"Maximum number of results to return (default 50)"},` +
			`"page":{"type":"integer","description":"Page number for pagination (default 1)"}}}`),
	}
	grafanaFetch = definition{
		Name: "get_dashboard_by_uid",
		Description: "Retrieves the complete dashboard, including panels, variables, and settings, for a specific dashboard identified by its UID. " +
			"Large dashboards can take much of the context window: get_dashboard_summary gives an overview.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"uid":{"type":"string","description":"The UID of the dashboard"}},"required":["uid"]}`),
	}
)

// grafanaTools returns the same two tools through searchfetch, with the
// server's names, descriptions and arguments.
func grafanaTools() *searchfetch.Tools {
	return searchfetch.New(&recorder{}, &searchfetch.Options{
		SearchName:        grafanaSearch.Name,
		FetchName:         grafanaFetch.Name,
		SearchDescription: grafanaSearch.Description,
		FetchDescription:  grafanaFetch.Description,
		IDArg:             "uid",
		SearchArgs: json.RawMessage(`{"type":"object","properties":{` +
			`"query":{"type":"string","description":"The query to search for"},` +
			`"limit":{"type":"integer","description":"Maximum number of results to return (default 50)"},` +
			`"page":{"type":"integer","description":"Page number for pagination (default 1)"}}}`),
		FetchArgs: json.RawMessage(`{"type":"object","properties":{"uid":{"type":"string","description":"The UID of the dashboard"}}}`),
	})
}

// TestDefinitionTokens: a tool with a server's own name, descriptions and
// arguments costs a model at most 1.2x, or its own plus 40 o200k tokens,
// whichever is larger, what the same tool written by hand costs; the
// default descriptions stay under 120 tokens a tool. It reports them all.
func TestDefinitionTokens(t *testing.T) {
	tools := grafanaTools()
	for _, tt := range []struct {
		hand definition
		tool searchfetch.Tool
	}{{grafanaSearch, tools.SearchTool()}, {grafanaFetch, tools.FetchTool()}} {
		hand := definitionTokens(t, tt.hand)
		got := definitionTokens(t, definition{tt.tool.Name, tt.tool.Description, tt.tool.InputSchema})
		bound := max(hand*12/10, hand+40)
		t.Logf("%s: %d o200k tokens by hand, %d through searchfetch (bound %d)", tt.hand.Name, hand, got, bound)
		assert.LessOrEqual(t, got, bound, "%s: %s", tt.tool.Name, tt.tool.InputSchema)
	}

	defaults := searchfetch.New(&recorder{}, nil)
	for _, tool := range []searchfetch.Tool{defaults.SearchTool(), defaults.FetchTool()} {
		desc := int(economy.TokensPerID(t, tool.Description, 1))
		whole := definitionTokens(t, definition{tool.Name, tool.Description, tool.InputSchema})
		t.Logf("default %s: %d o200k tokens of description, %d of definition", tool.Name, desc, whole)
		assert.Less(t, desc, 120, tool.Description)
	}
}

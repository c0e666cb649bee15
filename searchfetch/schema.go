package searchfetch

import (
	"encoding/json"

	"github.com/mcpid/mcpid"
)

// The input schemas. ChatGPT mode's are exactly the argument lists of
// OpenAI's contract; the default mode's describe each argument for the
// model. Both forbid arguments the tool does not take, as readArgs does.
var (
	searchSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"What to look for across every connected source."}},"required":["query"],"additionalProperties":false}`)
	fetchSchema  = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":"An id exactly as search showed it."},"connection_id":{"type":"string","description":"Only where search showed a connection_id next to the id, or an ambiguous_connection error asks for one."}},"required":["id"],"additionalProperties":false}`)

	searchSchemaChatGPT = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}`)
	fetchSchemaChatGPT  = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`)
)

// The tool descriptions: what the model reads before its first call.
const (
	searchDescription = "Search every connected source. Each result line starts with its id; " +
		"fetch a result by passing that id exactly as shown."
	fetchDescription = "Fetch one search result by its id, exactly as search showed it. " +
		"Pass connection_id only where search showed one next to the id, or when an " +
		"ambiguous_connection error lists the connections to choose from."
	searchDescriptionChatGPT = "Search every connected source. Returns JSON: " +
		`{"results":[{"id","title","url"}]}; fetch a result by its id.`
	fetchDescriptionChatGPT = "Fetch one search result by its id, exactly as search returned it. " +
		`Returns JSON: {"id","title","text","url","metadata"}.`
)

// searchTool returns the search tool's definition in mode m.
func searchTool(m Mode) Tool {
	if m == ModeChatGPT {
		return Tool{Name: SearchName, Description: searchDescriptionChatGPT, InputSchema: searchSchemaChatGPT, ReadOnly: true}
	}
	return Tool{Name: SearchName, Description: searchDescription, InputSchema: searchSchema, ReadOnly: true}
}

// fetchTool returns the fetch tool's definition in mode m.
func fetchTool(m Mode) Tool {
	if m == ModeChatGPT {
		return Tool{Name: FetchName, Description: fetchDescriptionChatGPT, InputSchema: fetchSchemaChatGPT, ReadOnly: true}
	}
	return Tool{Name: FetchName, Description: fetchDescription, InputSchema: fetchSchema, ReadOnly: true}
}

// previewFormat returns the search text's format in mode m.
func previewFormat(m Mode) mcpid.Format {
	if m == ModeChatGPT {
		return mcpid.FormatJSON
	}
	return mcpid.FormatText
}

package searchfetch

import (
	"encoding/json"
	"strings"

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

// webURL returns s when mcpid.FormatJSON shows it as a hit's url, and ""
// otherwise, so that ChatGPT mode's structuredContent equals the text: an
// absolute http or https URL (the scheme in any case) with a host and no
// userinfo, made only of the printable ASCII characters RFC 3986 allows,
// with '%' only before two hex digits. TestChatGPTURLs holds the two rules
// together.
func webURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") {
		return ""
	}
	host, _, _ := strings.Cut(rest, "/")
	if i := strings.IndexAny(host, "?#"); i >= 0 {
		host = host[:i]
	}
	if host == "" || strings.Contains(host, "@") {
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			return ""
		}
		if c == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			return ""
		}
	}
	return s
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

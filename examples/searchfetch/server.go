package main

import (
	"context"
	"encoding/json"
	"errors"
	"maps"

	"github.com/mcpid/mcpid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// searchInput is the argument object of the search tool. Query is
// optional (omitempty keeps it out of the schema's required list), so that
// search {} lists everything, as the description says.
type searchInput struct {
	Query string `json:"query,omitempty" jsonschema:"what to look for across every connected source; empty or absent lists everything"`
}

// searchResult is one hit in the search tool's structuredContent. ID is
// the self-contained id (connection/stream:record) whenever the hit's
// connection could be embedded; ConnectionID stays beside it for clients
// that read fields rather than text.
type searchResult struct {
	ID           string `json:"id"`
	ConnectionID string `json:"connection_id,omitempty"`
	ConnectorKey string `json:"connector_key,omitempty"`
	Stream       string `json:"stream,omitempty"`
	DisplayName  string `json:"display_name,omitempty"`
	Title        string `json:"title,omitempty"`
	Snippet      string `json:"snippet,omitempty"`
	URL          string `json:"url,omitempty"`
}

// searchOutput is the search tool's structuredContent.
type searchOutput struct {
	Results []searchResult `json:"results"`
	Total   int            `json:"total"`
	HasMore bool           `json:"has_more,omitempty"`
}

// fetchInput is the argument object of the fetch tool.
type fetchInput struct {
	ID           string `json:"id" jsonschema:"the id exactly as search showed it"`
	ConnectionID string `json:"connection_id,omitempty" jsonschema:"only when search showed a connection_id next to the id, or an ambiguous_connection error asks for one"`
}

// fetchOutput is the fetch tool's structuredContent, and its text.
type fetchOutput struct {
	ID       string            `json:"id"`
	Title    string            `json:"title"`
	Text     string            `json:"text"`
	URL      string            `json:"url"`
	Metadata map[string]string `json:"metadata"`
}

// Tool descriptions: what the model reads before its first call.
const (
	searchDescription = "Search every connected source (orders, tickets, ...). " +
		"Each result line starts with its id; fetch a result by passing that id as-is."
	fetchDescription = "Fetch one search result by its id, exactly as search showed it. " +
		"Pass connection_id only where search showed one next to the id, or when an " +
		"ambiguous_connection error lists the connections to choose from."
)

// newServer returns an MCP server with the search and fetch tools over the
// resource server that rs calls.
//
// Neither tool declares an output schema: a tool error carries the error
// envelope in structuredContent, and clients that validate
// structuredContent against outputSchema would reject it.
func newServer(rs *resourceClient) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mcpid-searchfetch", Version: "v0.1.0"}, nil)
	t := tools{rs: rs}
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "search",
		Description: searchDescription,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, t.search)
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "fetch",
		Description: fetchDescription,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, t.fetch)
	return srv
}

// tools holds the tool handlers. Their output type is any, so that the SDK
// leaves Content and StructuredContent as the handlers set them.
type tools struct {
	rs *resourceClient
}

// search calls the resource server and returns the hits with
// self-contained ids: the preview text in content[] and every result, with
// its discrete connection_id, in structuredContent.
func (t tools) search(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, any, error) {
	res, err := t.rs.search(ctx, in.Query)
	if err != nil {
		return toolError(err), nil, nil
	}
	out := searchOutput{Results: make([]searchResult, len(res.Hits)), Total: max(res.Total, len(res.Hits)), HasMore: res.HasMore}
	for i, h := range res.Hits {
		id, _ := mcpid.SelfContainedID(h.ID, h.ConnectionID)
		out.Results[i] = searchResult{
			ID:           id,
			ConnectionID: h.ConnectionID,
			ConnectorKey: h.ConnectorKey,
			Stream:       h.Stream,
			DisplayName:  h.DisplayName,
			Title:        h.Title,
			Snippet:      h.Snippet,
			URL:          h.URL,
		}
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: previewText(out)}},
		StructuredContent: out,
	}, nil, nil
}

// previewText renders the model-visible text of a search answer with
// [mcpid.RenderPreview] and its default budget. A hit's connection_id is
// shown only when its id could not embed it.
func previewText(out searchOutput) string {
	hits := make([]mcpid.Hit, len(out.Results))
	for i, r := range out.Results {
		hits[i] = mcpid.Hit{
			ID:           r.ID,
			ConnectionID: r.ConnectionID,
			ConnectorKey: r.ConnectorKey,
			Stream:       r.Stream,
			DisplayName:  r.DisplayName,
			Title:        r.Title,
			Snippet:      r.Snippet,
		}
	}
	return mcpid.RenderPreview(hits, mcpid.PreviewOptions{Total: out.Total, HasMore: out.HasMore})
}

// fetch resolves the id and connection_id with [mcpid.ResolveFetch] and
// only then reads the record. The document carries the id as given.
func (t tools) fetch(ctx context.Context, _ *mcp.CallToolRequest, in fetchInput) (*mcp.CallToolResult, any, error) {
	req, err := mcpid.ResolveFetch(in.ID, in.ConnectionID)
	if err != nil {
		return toolError(err), nil, nil
	}
	doc, err := t.rs.record(ctx, req)
	if err != nil {
		return toolError(err), nil, nil
	}
	meta := maps.Clone(doc.Metadata)
	if meta == nil {
		meta = map[string]string{}
	}
	meta["connection_id"] = doc.ConnectionID
	meta["stream"] = doc.Stream
	meta["scope"] = req.Scope.String()
	out := fetchOutput{ID: req.EchoID, Title: doc.Title, Text: doc.Text, URL: doc.URL, Metadata: meta}
	text, err := json.Marshal(out)
	if err != nil {
		return toolError(err), nil, nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(text)}},
		StructuredContent: out,
	}, nil, nil
}

// toolError returns the MCP tool error for err: IsError set, and the JSON
// envelope both as the text of content[] and as structuredContent, so that
// a model reading text and a client reading fields see the same thing.
func toolError(err error) *mcp.CallToolResult {
	var me *mcpid.Error
	if !errors.As(err, &me) {
		me = mcpid.NewError(mcpid.CodeResourceUnavailable, "the server failed", "retry later")
	}
	b, merr := me.MarshalJSON()
	if merr != nil {
		b = []byte(`{"type":"adapter_error","code":"internal_error","message":"cannot encode the error"}`)
	}
	res := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}
	res.SetError(err) // keeps Content; records err for server middleware
	return res
}

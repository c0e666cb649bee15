package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// step is one tool call of a journey and the answer the client got.
type step struct {
	Tool    string
	Args    map[string]any
	Text    string
	IsError bool
}

// journey records the calls of a test, so that the answers of both SDKs
// can be compared.
type journey struct {
	s     *session
	steps []step
}

// call calls a tool and records the answer.
func (j *journey) call(t *testing.T, name string, args map[string]any) step {
	t.Helper()
	res := j.s.call(t, name, args)
	require.Len(t, res.Content, 1)
	st := step{Tool: name, Args: args, Text: textOf(res), IsError: res.IsError}
	j.steps = append(j.steps, st)
	return st
}

// document requires st to be a fetched document and decodes it.
func document(t *testing.T, st step) searchfetch.Document {
	t.Helper()
	require.False(t, st.IsError, "fetch failed: %s", st.Text)
	var doc searchfetch.Document
	require.NoError(t, json.Unmarshal([]byte(st.Text), &doc))
	return doc
}

// toolErr requires st to be a tool error and decodes its envelope.
func toolErr(t *testing.T, st step) *mcpid.Error {
	t.Helper()
	require.True(t, st.IsError, "want a tool error, got: %s", st.Text)
	var e mcpid.Error
	require.NoError(t, json.Unmarshal([]byte(st.Text), &e))
	return &e
}

// TestJourney: the model's journey against the fixture, once per SDK,
// with ids taken from the search text alone: a plain handle, the two
// opaque handles (a URL id and a key with '/' from two connections), a
// legacy id that is ambiguous and its retry, and a traversal attempt. Both
// SDKs give the same answers, byte for byte.
func TestJourney(t *testing.T) {
	answers := map[string][]step{}
	for _, sdk := range sdks {
		t.Run(sdk, func(t *testing.T) {
			fx, rc := newTestFixture(t)
			j := &journey{s: connect(t, newMCPServer(sdk, rc, false, nil, nil, false))}

			ids := mcpid.ExtractIDs(j.call(t, "search", map[string]any{"query": "espresso"}).Text)
			require.NotEmpty(t, ids)
			assert.Equal(t, "cin_4f2a/orders:o1", ids[0])
			doc := document(t, j.call(t, "fetch", map[string]any{"id": ids[0]}))
			assert.Equal(t, ids[0], doc.ID)
			assert.Equal(t, "Order o1: 3 kg espresso beans", doc.Title)

			ids = mcpid.ExtractIDs(j.call(t, "search", map[string]any{"query": "descaling"}).Text)
			require.Equal(t, []string{opaqueWikiID, opaqueFileID}, ids, "both hits are shown as opaque handles")
			for i, want := range []struct{ connection, title string }{
				{"cin_9b1c", "Runbook: descaling the shop's machines"},
				{"cin_d21e", "Q3 report: descaling kits sold"},
			} {
				doc := document(t, j.call(t, "fetch", map[string]any{"id": ids[i]}))
				assert.Equal(t, ids[i], doc.ID, "the document echoes the id as given")
				assert.Equal(t, want.title, doc.Title)
				assert.Equal(t, want.connection, doc.Metadata["connection_id"])
			}

			e := toolErr(t, j.call(t, "fetch", map[string]any{"id": "orders:o1"}))
			require.ErrorIs(t, e, mcpid.ErrAmbiguousConnection)
			require.Equal(t, []string{"cin_4f2a", "cin_9b7e"}, e.Available)
			doc = document(t, j.call(t, "fetch", map[string]any{"id": "orders:o1", "connection_id": e.Available[1]}))
			assert.Equal(t, "orders:o1", doc.ID)
			assert.Equal(t, "Order o1: espresso grinder", doc.Title)

			before := len(fx.requests())
			e = toolErr(t, j.call(t, "fetch", map[string]any{"id": "cin_d21e/files:../../etc/passwd"}))
			assert.ErrorIs(t, e, mcpid.ErrInvalidID)
			assert.Len(t, fx.requests(), before, "a traversal never reaches the resource server")
			answers[sdk] = j.steps
		})
	}
	require.Len(t, answers, len(sdks))
	if diff := cmp.Diff(answers[sdks[0]], answers[sdks[1]]); diff != "" {
		t.Errorf("the SDKs answer differently (-%s +%s):\n%s", sdks[0], sdks[1], diff)
	}
}

// TestChatGPTMode: with -chatgpt, each SDK lists search with exactly
// {query} and fetch with exactly {id}, answers search with one text item
// holding the JSON of structuredContent (every hit fits), fetches by id
// alone, and refuses connection_id as an argument it does not take.
func TestChatGPTMode(t *testing.T) {
	wantSchemas := map[string][]string{"search": {"query"}, "fetch": {"id"}}
	for _, sdk := range sdks {
		t.Run(sdk, func(t *testing.T) {
			s := connect(t, newTestServer(t, sdk, true))
			list, err := s.cs.ListTools(t.Context(), nil)
			require.NoError(t, err)
			require.Len(t, list.Tools, len(wantSchemas))
			for _, tool := range list.Tools {
				var schema struct {
					Properties           map[string]any `json:"properties"`
					Required             []string       `json:"required"`
					AdditionalProperties *bool          `json:"additionalProperties"`
				}
				b, err := json.Marshal(tool.InputSchema)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &schema))
				want, ok := wantSchemas[tool.Name]
				require.True(t, ok, tool.Name)
				var props []string
				for p := range schema.Properties {
					props = append(props, p)
				}
				assert.Equal(t, want, props, tool.Name)
				assert.Equal(t, want, schema.Required, tool.Name)
				require.NotNil(t, schema.AdditionalProperties, tool.Name)
				assert.False(t, *schema.AdditionalProperties, tool.Name)
				require.NotNil(t, tool.Annotations, tool.Name)
				assert.True(t, tool.Annotations.ReadOnlyHint, tool.Name)
			}

			text, structured := s.ok(t, "search", map[string]any{"query": "descaling"})
			assert.JSONEq(t, string(structured), text, "the text is structuredContent when every hit fits")
			assert.Equal(t, []string{opaqueWikiID, opaqueFileID}, mcpid.ExtractIDs(text))
			for _, id := range mcpid.ExtractIDs(text) {
				text, structured := s.ok(t, "fetch", map[string]any{"id": id})
				assert.JSONEq(t, string(structured), text)
				var doc searchfetch.Document
				require.NoError(t, json.Unmarshal([]byte(text), &doc))
				assert.Equal(t, id, doc.ID)
			}

			e := s.toolError(t, "fetch", map[string]any{"id": "orders:o1", "connection_id": "cin_4f2a"})
			assert.Equal(t, searchfetch.CodeInvalidArguments, e.Code)
		})
	}
}

// TestSetLoggingLevel: on both SDKs the server declares logging and answers
// logging/setLevel, as the MCP conformance suite's logging-set-level asks.
func TestSetLoggingLevel(t *testing.T) {
	for _, sdk := range sdks {
		t.Run(sdk, func(t *testing.T) {
			s := connect(t, newTestServer(t, sdk, false))
			//lint:ignore SA1019 the conformance suite asks for logging while it is deprecated
			require.NotNil(t, s.cs.InitializeResult().Capabilities.Logging, "the logging capability")
			ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
			defer cancel()
			//lint:ignore SA1019 the conformance suite asks for logging while it is deprecated
			require.NoError(t, s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}))
		})
	}
}

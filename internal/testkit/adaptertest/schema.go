package adaptertest

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/searchfetch"
)

// wantAnnotations are the annotations both tools carry on the wire, in
// both modes: all four, explicit.
var wantAnnotations = map[string]any{"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}

// validating returns connect with every answer checked against the output
// schema of the tool it answers.
func validating(connect Connect) Connect {
	return func(t testing.TB, b searchfetch.Backend, opts *searchfetch.Options) Client {
		tools := searchfetch.New(b, opts)
		schemas := map[string]*jsonschema.Resolved{}
		for _, tool := range []searchfetch.Tool{tools.SearchTool(), tools.FetchTool()} {
			schemas[tool.Name] = Resolve(t, tool.OutputSchema)
		}
		return checked{connect(t, b, opts), schemas}
	}
}

// checked is a Client whose answers are validated.
type checked struct {
	Client
	schemas map[string]*jsonschema.Resolved
}

// ArgumentsDecoded implements [ArgumentsDecoder] for the Client it checks.
func (c checked) ArgumentsDecoded() string { return argumentsDecoded(c.Client) }

func (c checked) Call(t testing.TB, name string, args any) Answer {
	t.Helper()
	a := c.Client.Call(t, name, args)
	if rs := c.schemas[name]; rs != nil {
		require.NotNil(t, a.Structured, "%s declares an output schema: structuredContent is required", name)
		assert.NoError(t, rs.Validate(a.Structured), "%s: structuredContent against the output schema", name)
	}
	return a
}

// Resolve returns the resolved JSON Schema schema, or nil for none.
func Resolve(t testing.TB, schema json.RawMessage) *jsonschema.Resolved {
	t.Helper()
	if schema == nil {
		return nil
	}
	var s jsonschema.Schema
	require.NoError(t, json.Unmarshal(schema, &s))
	rs, err := s.Resolve(nil)
	require.NoError(t, err)
	return rs
}

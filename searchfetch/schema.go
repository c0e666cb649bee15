package searchfetch

import (
	"encoding/json"
	"strings"

	"github.com/mcpid/mcpid"
)

// The input schemas of ChatGPT mode: exactly the argument lists of
// OpenAI's contract. Both forbid arguments the tool does not take, as
// readArgs does; so do the default mode's ([Tools.inputSchema]).
const (
	searchSchemaChatGPT = `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}`
	fetchSchemaChatGPT  = `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`
)

// ownProp is one of a tool's own arguments in the default mode's input
// schema: its name, its schema but for the description, and its
// description, a template naming the search tool as registered
// ({search}).
type ownProp struct {
	name, schema, description string
}

// The default mode's own arguments of each tool, the first named by
// Options.QueryArg or Options.IDArg.
var (
	searchProps = []ownProp{
		{"query", `"type":"string"`, "What to look for across every connected source."},
		{FieldCursor, `"type":"string"`, "Only for more hits: a next_cursor {search} gave."},
	}
	fetchProps = []ownProp{
		{"id", `"type":"string"`, "An id exactly as {search} showed it."},
		// connection_id and offset go without a description: the fetch
		// tool's own describes them, and the results that ask for them
		// (a search line, an ambiguous_connection error, a cut text) say
		// what to pass, so a server's own description costs no more.
		{"connection_id", `"type":"string"`, ""},
		{FieldOffset, `"type":"integer","minimum":0`, ""},
	}
)

// inputSchema returns the default mode's input schema of a tool whose own
// arguments are own, the first named first, and that takes the arguments
// x declares (nil for none) after them: own's descriptions, or those x
// gives them, then x's properties as the server wrote them; the first own
// argument and those x requires are required, and no other argument is
// allowed.
func inputSchema(own []ownProp, first string, x *extraArgs, names *strings.Replacer) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	required := []string{first}
	for i, p := range own {
		if i == 0 {
			p.name = first
		}
		desc := names.Replace(p.description)
		if d, ok := x.description(p.name); ok {
			desc = d
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(p.name))
		b.WriteString(":{")
		b.WriteString(p.schema)
		if desc != "" {
			b.WriteString(`,"description":`)
			b.Write(marshal(desc))
		}
		b.WriteByte('}')
	}
	if x != nil {
		for _, a := range x.args {
			b.WriteByte(',')
			b.WriteString(a.key)
			b.WriteByte(':')
			b.Write(a.schema)
			if a.required {
				required = append(required, a.name)
			}
		}
	}
	b.WriteString(`},"required":`)
	b.Write(marshal(required))
	b.WriteString(`,"additionalProperties":false}`)
	return json.RawMessage(b.String())
}

// The output schemas: each admits the tool's result and the error
// envelope of [mcpid.Error.MarshalJSON], since a client that validates
// structuredContent validates that of an error result too.
const (
	envelopeSchema = `{"type":"object","properties":{"type":{"const":"adapter_error"},"code":{"type":"string"},"message":{"type":"string"},"hint":{"type":"string"}},"required":["type","code","message"]}`

	// searchOutputSchema is that of the default mode: every field is a
	// string, and only id is always present.
	searchOutputSchema = `{"type":"object","properties":{"results":{"type":"array","items":{"type":"object","properties":{` +
		`"id":{"type":"string"},"connection_id":{"type":"string"},"connector_key":{"type":"string"},"stream":{"type":"string"},` +
		`"display_name":{"type":"string"},"title":{"type":"string"},"snippet":{"type":"string"},"url":{"type":"string"}},` +
		`"required":["id"],"additionalProperties":false}},"total":{"type":"integer","minimum":0},"has_more":{"type":"boolean"},"next_cursor":{"type":"string"}},` +
		`"required":["results","total"],"additionalProperties":false}`
	// searchOutputSchemaChatGPT is that of mcpid.FormatJSON.
	searchOutputSchemaChatGPT = `{"type":"object","properties":{"results":{"type":"array","items":{"type":"object","properties":{` +
		`"id":{"type":"string"},"title":{"type":"string"},"url":{"type":"string"},"text":{"type":"string"}},` +
		`"required":["id","title","url"],"additionalProperties":false}}},"required":["results"],"additionalProperties":false}`
	// documentSchema is that of a Document in ModeDefault: its text or its
	// data, the mark of data given as text, and the members of a cut text.
	documentSchema = `{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"text":{"type":"string"},"data":{"type":["object","array"]},"url":{"type":"string"},` +
		`"metadata":{"type":"object","additionalProperties":{"type":"string"}},"data_as_text":{"type":"boolean"},` +
		`"truncated":{"type":"boolean"},"total_length":{"type":"integer","minimum":0},"next_offset":{"type":"integer","minimum":0}},` +
		`"required":["id","title","url"],"anyOf":[{"required":["text"]},{"required":["data"]}],"additionalProperties":false}`
	// documentSchemaChatGPT is that of a Document, OpenAI's shape.
	documentSchemaChatGPT = `{"type":"object","properties":{"id":{"type":"string"},"title":{"type":"string"},"text":{"type":"string"},"url":{"type":"string"},` +
		`"metadata":{"type":"object","additionalProperties":{"type":"string"}}},"required":["id","title","text","url"],"additionalProperties":false}`
)

// The tool descriptions: what the model reads before its first call, with
// the tools named as registered.
const (
	searchDescription = "Search every connected source. Each result line starts with its id; " +
		"fetch a result with {fetch}, passing that id exactly as shown."
	fetchDescription = "Fetch one {search} result by its id, exactly as {search} showed it. " +
		"Pass connection_id only where {search} showed one next to the id, or when an " +
		"ambiguous_connection error lists the connections to choose from. A long text comes " +
		"back cut, with truncated and next_offset: pass that as offset to read on."
	searchDescriptionChatGPT = "Search every connected source. Returns JSON: " +
		`{"results":[{"id","title","url"}]}; fetch a result with {fetch} by its id.`
	fetchDescriptionChatGPT = "Fetch one {search} result by its id, exactly as {search} returned it. " +
		`Returns JSON: {"id","title","text","url","metadata"}.`
)

// tools returns the definitions of the two tools, in t's mode and under
// t's names.
func (t *Tools) tools() (search, fetch Tool) {
	names := strings.NewReplacer("{search}", t.opts.SearchName, "{fetch}", t.opts.FetchName)
	in := [2]json.RawMessage{
		inputSchema(searchProps, t.opts.QueryArg, t.hints.searchArgs.extra, names),
		inputSchema(fetchProps, t.opts.IDArg, t.hints.fetchArgs.extra, names),
	}
	out := [2]string{searchOutputSchema, documentSchema}
	desc := [2]string{searchDescription, fetchDescription}
	if t.opts.Mode == ModeChatGPT {
		in = [2]json.RawMessage{json.RawMessage(searchSchemaChatGPT), json.RawMessage(fetchSchemaChatGPT)}
		out = [2]string{searchOutputSchemaChatGPT, documentSchemaChatGPT}
		desc = [2]string{searchDescriptionChatGPT, fetchDescriptionChatGPT}
	}
	def := func(i int, name string) Tool {
		tool := Tool{
			Name:        name,
			Description: names.Replace(desc[i]),
			InputSchema: in[i],
			ReadOnly:    true,
			Idempotent:  true,
			OpenWorld:   t.opts.OpenWorld,
		}
		if t.opts.Structured != StructuredNone {
			tool.OutputSchema = json.RawMessage(`{"type":"object","anyOf":[` + out[i] + `,` + envelopeSchema + `]}`)
		}
		return tool
	}
	return def(0, t.opts.SearchName), def(1, t.opts.FetchName)
}

// previewFormat returns the search text's format in mode m.
func previewFormat(m Mode) mcpid.Format {
	if m == ModeChatGPT {
		return mcpid.FormatJSON
	}
	return mcpid.FormatText
}

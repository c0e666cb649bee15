package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpid/mcpid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// demoQuery is what the demo searches for; in the fixture it matches
// records in all three connections.
const demoQuery = "espresso"

// runDemo connects the SDK's own client to srv over in-memory transports
// and walks the journey a model takes, printing what each side sees. fx,
// when not nil, is the fixture behind srv, whose request log shows what
// reached the resource server.
func runDemo(ctx context.Context, srv *mcp.Server, fx *fixture, base string, w io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "searchfetch-demo", Version: "v0.1.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()

	d := &demo{cs: cs, fx: fx, w: w}
	where := "the external resource server"
	if fx != nil {
		where = "the fixture resource server"
	}
	d.printf("mcpid searchfetch demo: the go-sdk client, in process, against %s at %s\n", where, base)

	d.printf("\n1. The model searches.\n")
	res, err := d.call(ctx, "search", searchInput{Query: demoQuery})
	if err != nil {
		return err
	}
	text := textOf(res)
	if res.IsError {
		return fmt.Errorf("search failed: %s", text)
	}
	var found searchOutput
	if err := decodeStructured(res, &found); err != nil {
		return err
	}
	if len(found.Results) > 0 {
		d.printf("   ← structuredContent.results[0], what a client reads:\n")
		d.printJSON(found.Results[0])
	}

	ids := mcpid.ExtractIDs(text)
	if len(ids) == 0 {
		d.printf("\nThe search text shows no id; nothing to fetch.\n")
		return nil
	}
	first := ids[0]
	d.printf("\n2. The model kept only the text. ExtractIDs(text)[0] = %s\n", first)
	d.printf("   It fetches with that id alone.\n")
	if _, err := d.call(ctx, "fetch", fetchInput{ID: first}); err != nil {
		return err
	}

	h, err := mcpid.Parse(first)
	if err != nil || !h.IsSelfContained() {
		return nil // the rest of the journey is about self-contained ids
	}
	legacy, err := mcpid.Encode("", h.Stream(), h.RecordID())
	if err != nil {
		return err
	}
	d.printf("\n3. An agent from before self-contained ids passes the legacy id %s alone.\n", legacy)
	res, err = d.call(ctx, "fetch", fetchInput{ID: legacy})
	if err != nil {
		return err
	}
	var env struct {
		Code      string   `json:"code"`
		Available []string `json:"available_connections"`
	}
	if res.IsError && decodeStructured(res, &env) == nil && env.Code == string(mcpid.CodeAmbiguousConnection) && len(env.Available) > 0 {
		pick := env.Available[0]
		if i := slices.IndexFunc(env.Available, func(c string) bool { return c != h.ConnectionID() }); i >= 0 {
			pick = env.Available[i]
		}
		d.printf("   It retries with connection_id %s, one of the available_connections.\n", pick)
		if _, err := d.call(ctx, "fetch", fetchInput{ID: legacy, ConnectionID: pick}); err != nil {
			return err
		}
	}

	other := "cin_other"
	for _, r := range found.Results {
		if r.ConnectionID != "" && r.ConnectionID != h.ConnectionID() {
			other = r.ConnectionID
			break
		}
	}
	d.printf("\n4. The model passes a connection_id that contradicts the id.\n")
	if _, err := d.call(ctx, "fetch", fetchInput{ID: first, ConnectionID: other}); err != nil {
		return err
	}
	return nil
}

// demo prints a transcript of tool calls.
type demo struct {
	cs *mcp.ClientSession
	fx *fixture
	w  io.Writer
}

// printf writes to the transcript.
func (d *demo) printf(format string, args ...any) {
	fmt.Fprintf(d.w, format, args...)
}

// printJSON writes v as indented JSON, indented under the current step.
func (d *demo) printJSON(v any) {
	var b []byte
	if raw, ok := v.(string); ok {
		var buf bytes.Buffer
		if json.Indent(&buf, []byte(raw), "     ", "  ") == nil {
			b = buf.Bytes()
		} else {
			b = []byte(raw)
		}
	} else {
		b, _ = json.MarshalIndent(v, "     ", "  ")
	}
	d.printf("     %s\n", b)
}

// call calls a tool under ctx and prints the arguments, the answer and,
// with a fixture, the requests that reached the resource server.
func (d *demo) call(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	a, _ := json.Marshal(args)
	d.printf("   → %s %s\n", name, a)
	seen := 0
	if d.fx != nil {
		seen = len(d.fx.requests())
	}
	res, err := d.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case res.IsError:
		d.printf("   ← isError, content[0].text = structuredContent:\n")
		d.printJSON(textOf(res))
	case name == "search":
		d.printf("   ← content[0].text, what the model reads:\n")
		for _, line := range strings.Split(strings.TrimRight(textOf(res), "\n"), "\n") {
			d.printf("     │ %s\n", line)
		}
	default:
		d.printf("   ← content[0].text:\n")
		d.printJSON(textOf(res))
	}
	if d.fx != nil {
		reqs := d.fx.requests()[seen:]
		if len(reqs) == 0 {
			d.printf("   resource server saw: nothing\n")
		}
		for _, r := range reqs {
			d.printf("   resource server saw: GET %s\n", r.URI)
		}
	}
	return res, nil
}

// textOf returns the text of the first content item of res, or "".
func textOf(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if t, ok := res.Content[0].(*mcp.TextContent); ok {
		return t.Text
	}
	return ""
}

// decodeStructured decodes the structuredContent of res into v. On a
// client the SDK holds it as decoded JSON, so it is encoded again first.
func decodeStructured(res *mcp.CallToolResult, v any) error {
	if res.StructuredContent == nil {
		return fmt.Errorf("no structuredContent")
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

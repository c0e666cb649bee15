package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpid/mcpid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The demo's searches. In the fixture the first matches records in three
// connections, two of which share orders:o1; the second matches the two
// records that only opaque handles can carry: a wiki page whose id is its
// URL and a file whose key holds '/'.
const (
	demoQuery       = "espresso"
	demoOpaqueQuery = "descaling"
)

// connectClient connects the go-sdk client to s in process, over a pair
// of pipes that carry the same newline-delimited JSON-RPC as -stdio. The
// session ends when the returned client session is closed; the returned
// channel is closed once the server has returned too.
func connectClient(ctx context.Context, s mcpServer) (*mcp.ClientSession, <-chan struct{}, error) {
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := s.serveStream(ctx, serverIn, serverOut)
		_ = serverOut.CloseWithError(err) // the client then sees the end
		_ = serverIn.CloseWithError(err)
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "searchfetch-demo", Version: "v0.1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		_ = clientOut.Close() // ends the server's input
		_ = clientIn.Close()  // and fails its writes
		<-done
		return nil, nil, err
	}
	return cs, done, nil
}

// runDemo connects the go-sdk client to s in process and walks the journey
// a model takes, printing what each side sees. fx, when not nil, is the
// fixture behind s, whose request log shows what reached the resource
// server.
func runDemo(ctx context.Context, s mcpServer, c config, fx *fixture, base string, w io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cs, served, err := connectClient(ctx, s)
	if err != nil {
		return err
	}
	defer func() {
		_ = cs.Close()
		<-served
	}()

	d := &demo{cs: cs, fx: fx, w: w}
	where := "the external resource server"
	if fx != nil {
		where = "the fixture resource server"
	}
	mode := ""
	if c.chatgpt {
		mode = " in ChatGPT mode"
	}
	d.printf("mcpid searchfetch demo: tools served by %s%s, called by the go-sdk client in process, against %s at %s\n",
		c.sdk, mode, where, base)

	d.printf("\n1. The model searches.\n")
	ids, err := d.search(ctx, demoQuery)
	if err != nil || len(ids) == 0 {
		return err
	}
	first := ids[0]
	d.printf("\n2. The model kept only the text. ExtractIDs(text)[0] = %s\n", first)
	d.printf("   It fetches with that id alone.\n")
	if _, err := d.call(ctx, "fetch", map[string]any{"id": first}); err != nil {
		return err
	}

	d.printf("\n3. Ids that are URLs, or keys with '/', are opaque handles: connection/:id.\n")
	opaque, err := d.search(ctx, demoOpaqueQuery)
	if err != nil {
		return err
	}
	for _, id := range opaque {
		d.printf("   The model fetches %s alone; the resource server looks the id up within its connection.\n", id)
		if _, err := d.call(ctx, "fetch", map[string]any{"id": id}); err != nil {
			return err
		}
	}

	if c.chatgpt {
		d.printf("\nIn ChatGPT mode fetch takes exactly {id}: every id above is all it needs.\n")
		return nil
	}
	h, err := mcpid.Parse(first)
	if err != nil || !h.IsSelfContained() || h.IsOpaque() {
		return nil // the rest of the journey is about plain self-contained ids
	}
	return d.legacyAndConflict(ctx, h)
}

// legacyAndConflict shows an agent from before self-contained ids passing
// h's legacy id, its retry with connection_id, and a connection_id that
// contradicts h.
func (d *demo) legacyAndConflict(ctx context.Context, h mcpid.Handle) error {
	legacy := h.BaseID()
	d.printf("\n4. An agent from before self-contained ids passes the legacy id %s alone.\n", legacy)
	res, err := d.call(ctx, "fetch", map[string]any{"id": legacy})
	if err != nil {
		return err
	}
	var e mcpid.Error
	if res.IsError && json.Unmarshal([]byte(textOf(res)), &e) == nil &&
		errors.Is(&e, mcpid.ErrAmbiguousConnection) && len(e.Available) > 0 {
		pick := e.Available[0]
		if i := slices.IndexFunc(e.Available, func(c string) bool { return c != h.ConnectionID() }); i >= 0 {
			pick = e.Available[i]
		}
		d.printf("   It decodes the error with mcpid.Error and retries with connection_id %s, one of the available_connections.\n", pick)
		if _, err := d.call(ctx, "fetch", map[string]any{"id": legacy, "connection_id": pick}); err != nil {
			return err
		}
	}

	other := "cin_other"
	if h.ConnectionID() == other {
		other = "cin_another"
	}
	d.printf("\n5. The model passes a connection_id that contradicts the id.\n")
	_, err = d.call(ctx, "fetch", map[string]any{"id": h.String(), "connection_id": other})
	return err
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

// search calls search and returns the ids its text shows.
func (d *demo) search(ctx context.Context, query string) ([]string, error) {
	res, err := d.call(ctx, "search", map[string]any{"query": query})
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, fmt.Errorf("search failed: %s", textOf(res))
	}
	ids := mcpid.ExtractIDs(textOf(res))
	if len(ids) == 0 {
		d.printf("\nThe search text shows no id; nothing to fetch.\n")
	}
	return ids, nil
}

// call calls a tool under ctx and prints the arguments, the answer and,
// with a fixture, the requests that reached the resource server.
func (d *demo) call(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, error) {
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
	text := textOf(res)
	switch {
	case res.IsError:
		d.printf("   ← isError, content[0].text = structuredContent:\n")
		d.printJSON(text)
	case name == "search" && !json.Valid([]byte(text)):
		d.printf("   ← content[0].text, what the model reads:\n")
		for _, line := range strings.Split(text, "\n") {
			d.printf("     │ %s\n", line)
		}
	default:
		d.printf("   ← content[0].text:\n")
		d.printJSON(text)
	}
	if d.fx != nil {
		reqs := d.fx.requests()[seen:]
		if len(reqs) == 0 {
			d.printf("   resource server saw: nothing\n")
		}
		for _, r := range reqs {
			d.printf("   resource server saw: GET %s\n", r)
		}
	}
	return res, nil
}

// printJSON writes a JSON text indented under the current step, or the
// text as it is when it is not JSON.
func (d *demo) printJSON(text string) {
	var buf bytes.Buffer
	if json.Indent(&buf, []byte(text), "     ", "  ") != nil {
		d.printf("     %s\n", text)
		return
	}
	d.printf("     %s\n", buf.Bytes())
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

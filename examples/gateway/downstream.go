package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxTools bounds the tools taken from one downstream server, so that a
// server that lists without end cannot exhaust the gateway.
const maxTools = 1000

// downstreamSpec is a downstream server to connect: its name, which the
// gateway's table keys its tools by, and how to reach it.
type downstreamSpec struct {
	name      string
	transport mcp.Transport
}

// downstream is one connected server. Its fields are guarded by the
// gateway's mu.
type downstream struct {
	name    string
	session *mcp.ClientSession // nil before it starts, and once it has ended
	tools   []*mcp.Tool        // the tools it lists that the gateway can serve

	// changed holds a tools/list_changed not yet acted on. Notifications
	// that arrive while one is pending merge into it, so a server that
	// floods them costs one relisting at a time, not one goroutine and
	// one tools/list each.
	changed chan struct{}
}

// connect starts a session with the downstream server d over t and reads
// its tools. A server that does not answer within the gateway's timeout
// is an error, and d stays without tools.
func (g *gateway) connect(ctx context.Context, d *downstream, t mcp.Transport) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpid-gateway", Version: "v0.1.0"}, &mcp.ClientOptions{
		Logger: g.cfg.logger,
		// The handler runs on the session's reading goroutine: listing
		// the tools from there would wait on itself. It leaves the work
		// to followChanges.
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case d.changed <- struct{}{}:
			default: // one is pending already
			}
		},
	})
	cctx, cancel := context.WithTimeout(ctx, g.cfg.timeout)
	defer cancel()
	cs, err := client.Connect(cctx, t, nil)
	if err != nil {
		return fmt.Errorf("starting the session: %w", err)
	}
	g.mu.Lock()
	d.session = cs
	g.mu.Unlock()
	ended := make(chan struct{})
	go func() {
		err := cs.Wait()
		close(ended)
		g.mu.Lock()
		if d.session == cs {
			d.session = nil
		}
		closing := g.closing
		g.mu.Unlock()
		if !closing {
			g.cfg.logger.Warn("gateway: downstream session ended; calls to its tools fail until the gateway restarts", "server", d.name, "err", err)
		}
	}()
	err = g.relist(ctx, d)
	go g.followChanges(d, ended)
	return err
}

// followChanges relists d's tools for each pending tools/list_changed,
// one at a time, until its session ends.
func (g *gateway) followChanges(d *downstream, ended <-chan struct{}) {
	for {
		select {
		case <-d.changed:
			if err := g.relist(context.Background(), d); err != nil {
				g.cfg.logger.Warn("gateway: relisting tools", "server", d.name, "err", err)
			}
		case <-ended:
			return
		}
	}
}

// relist reads d's tools again and, once the gateway has started,
// re-assigns the table.
func (g *gateway) relist(ctx context.Context, d *downstream) error {
	g.mu.Lock()
	cs := d.session
	g.mu.Unlock()
	if cs == nil {
		return errUnavailable
	}
	lctx, cancel := context.WithTimeout(ctx, g.cfg.timeout)
	defer cancel()
	var listed []*mcp.Tool
	for t, err := range cs.Tools(lctx, nil) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		if len(listed) == maxTools {
			g.cfg.logger.Warn("gateway: too many tools; the rest are not served", "server", d.name, "max", maxTools)
			break
		}
		listed = append(listed, t)
	}
	return g.update(d, g.servable(d.name, listed))
}

// servable returns the tools of listed that the gateway can serve, sorted
// by name, and logs the others: a tool without a name, or whose name is not
// valid UTF-8 (it cannot be named or called faithfully), every listing of a
// name after the first, and a tool whose input schema is not an object
// schema, which MCP requires. An output schema that is not a JSON object
// is dropped, keeping the tool.
func (g *gateway) servable(server string, listed []*mcp.Tool) []*mcp.Tool {
	var out []*mcp.Tool
	seen := map[string]bool{}
	for _, t := range listed {
		var why string
		switch {
		case t == nil || t.Name == "" || !utf8.ValidString(t.Name):
			why = "empty or invalid tool name"
		case seen[t.Name]:
			why = "tool name listed twice; the first is served"
		case !objectSchema(t.InputSchema):
			why = `input schema is not an object schema with "type": "object"`
		}
		if why != "" {
			name := ""
			if t != nil {
				name = t.Name
			}
			g.cfg.logger.Warn("gateway: tool skipped", "server", server, "tool", name, "why", why)
			continue
		}
		seen[t.Name] = true
		c := *t
		if _, ok := c.OutputSchema.(map[string]any); !ok {
			c.OutputSchema = nil
		}
		out = append(out, &c)
	}
	slices.SortFunc(out, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// objectSchema reports whether schema, as the client decoded it, is a
// JSON object whose "type" is "object".
func objectSchema(schema any) bool {
	m, ok := schema.(map[string]any)
	return ok && m["type"] == "object"
}

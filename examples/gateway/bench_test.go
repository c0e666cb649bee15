package main

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkRelay measures what the gateway adds to a tool call: the same
// call to the same in-process server, made directly and through the
// gateway, side by side in one run.
func BenchmarkRelay(b *testing.B) {
	echo := inProcessServer("alpha", "search")
	g, err := newGateway(config{})
	if err != nil {
		b.Fatal(err)
	}
	defer g.close()
	if err := g.start(b.Context(), []downstreamSpec{echo}); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		to   mcp.Transport
	}{
		{"direct", echo.transport},
		{"gateway", inProcess{g.srv}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(b.Context(), bc.to, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "q3 report"}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(b.Context(), params)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}

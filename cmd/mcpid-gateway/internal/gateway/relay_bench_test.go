package gateway

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkRelayKinds measures what the gateway adds to a prompts/get and
// a resources/read: the same request to the same in-process server, made
// directly and through the gateway (two downstreams, so the URI is a
// form), side by side in one run.
func BenchmarkRelayKinds(b *testing.B) {
	a := downstreamSpec{name: "a", transport: inProcess{docServer("a")}}
	g, _ := startGateway(b, config{}, a, downstreamSpec{name: "b", transport: inProcess{docServer("b")}})
	for _, bc := range []struct {
		name        string
		to          mcp.Transport
		prompt, uri string
	}{
		{"direct", a.transport, "summarize", "file:///README.md"},
		{"gateway", inProcess{g.srv}, "a__summarize", "mcpid:a:file:///README.md"},
	} {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(b.Context(), bc.to, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		for _, op := range []struct {
			name string
			do   func(context.Context) error
		}{
			{"prompts-get", func(ctx context.Context) error {
				_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: bc.prompt, Arguments: map[string]string{"topic": "t"}})
				return err
			}},
			{"resources-read", func(ctx context.Context) error {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: bc.uri})
				return err
			}},
		} {
			b.Run(op.name+"/"+bc.name, func(b *testing.B) {
				// The first prompts/list waits for the prompts' first
				// naming round.
				for _, err := range cs.Prompts(b.Context(), nil) {
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := op.do(b.Context()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

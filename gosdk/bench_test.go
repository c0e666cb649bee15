package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// handTools registers search and fetch written by hand with the go-sdk's
// raw AddTool, doing what the adapter does without its argument checks,
// its backend call bounded by adaptertest.Bounded as the adapter bounds it
// by default: the baseline of BenchmarkRoundTrip.
func handTools(s *mcp.Server, b searchfetch.Backend) {
	schema := json.RawMessage(`{"type":"object"}`)
	for _, tool := range adaptertest.HandTools(b) {
		s.AddTool(&mcp.Tool{Name: tool.Name, InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, structured, err := tool.Call(ctx, func(v any) error { return json.Unmarshal(req.Params.Arguments, v) })
			if err != nil {
				env, _ := json.Marshal(err)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(env)}}, StructuredContent: json.RawMessage(env), IsError: true}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}, nil
		})
	}
}

// roundTrips are the round-trip benchmarks on this SDK.
var roundTrips = adaptertest.RoundTrips[*mcp.Server]{
	Trip:    roundTrip,
	Adapter: func(s *mcp.Server, be searchfetch.Backend) { _ = gosdk.Register(s, be, nil) },
	Hand:    handTools,
	Inline: func(s *mcp.Server, be searchfetch.Backend) {
		_ = gosdk.Register(s, be, &searchfetch.Options{Inline: true})
	},
}

// roundTrip returns call made through the go-sdk's client and in-memory
// transport, to a new server whose tools register adds over
// adaptertest.Backend; it fails on a tool error too.
func roundTrip(tb testing.TB, register func(*mcp.Server, searchfetch.Backend), call adaptertest.BenchCall) func() error {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v0.0.1"}, nil)
	register(s, &adaptertest.Backend{})
	session := connectTo(tb, s)
	params := &mcp.CallToolParams{Name: call.Tool, Arguments: call.Args}
	ctx := context.Background()
	return func() error {
		res, err := session.CallTool(ctx, params)
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return err
	}
}

// BenchmarkRoundTrip measures a search and a fetch through the go-sdk's
// client and in-memory transport, with the tools of the adapter and with the
// same tools written by hand, one after the other in one run.
func BenchmarkRoundTrip(b *testing.B) { roundTrips.Bench(b) }

// BenchmarkRoundTripPaired makes the same calls through the adapter and by
// hand alternately in one loop; see [adaptertest.RoundTrips.BenchPaired].
func BenchmarkRoundTripPaired(b *testing.B) { roundTrips.BenchPaired(b) }

// TestHandTwin: the hand-written tools the benchmarks measure the adapter
// against answer their calls exactly as the adapter does.
func TestHandTwin(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "hand", Version: "v0.0.1"}, nil)
	handTools(s, &adaptertest.Backend{})
	adaptertest.RunTwin(t, connect(t, &adaptertest.Backend{}, nil), client{session: connectTo(t, s)})
}

// BenchmarkStdioRead measures reading a tools/call message from stdio
// through the go-sdk's own transport and through NewStdioTransport, side
// by side: the guard's cost next to the SDK's own decoding.
func BenchmarkStdioRead(b *testing.B) {
	line := `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"cin_4f2a/orders:o1"}}}` + "\n"
	for _, tt := range []struct {
		name      string
		transport func(io.ReadCloser, io.WriteCloser) mcp.Transport
	}{
		{"sdk", func(r io.ReadCloser, w io.WriteCloser) mcp.Transport { return &mcp.IOTransport{Reader: r, Writer: w} }},
		{"guarded", func(r io.ReadCloser, w io.WriteCloser) mcp.Transport { return gosdk.NewStdioTransport(r, w) }},
	} {
		b.Run(tt.name, func(b *testing.B) {
			r := &repeater{line: line}
			conn, err := tt.transport(r, nopCloser{io.Discard}).Connect(context.Background())
			require.NoError(b, err)
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := conn.Read(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			_ = conn.Close()
		})
	}
}

// repeater is an endless reader of the same line, a line a read at most,
// as a pipe gives them.
type repeater struct {
	line string
	off  int
}

func (r *repeater) Read(p []byte) (int, error) {
	n := copy(p, r.line[r.off:])
	r.off = (r.off + n) % len(r.line)
	return n, nil
}

func (r *repeater) Close() error { return nil }

// nopCloser is an io.WriteCloser whose Close does nothing.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

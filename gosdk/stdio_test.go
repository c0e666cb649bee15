package gosdk_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
)

// FuzzStdioTransport is the differential of NewStdioTransport against the
// go-sdk's own transport: every line the guard passes the SDK decodes, so
// no line it lets through can end the session, and every line the SDK
// reads as one message passes the guard as that message, unless the
// guard's own rules (batches, depth, an envelope that repeats a key)
// refuse it.
func FuzzStdioTransport(f *testing.F) {
	adaptertest.SeedHostileLines(f)
	f.Add(`{"jsonrpc":"2.0","id":1,"error":"x"}`)
	f.Add(`{"jsonrpc":"2.0","id":1,"method":7}`)
	f.Add(`{"jsonrpc":"2.0","result":{}}`)
	f.Add(`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`)
	f.Add(`{"jsonrpc":"2.0","id":"x","result":{}}`)
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") {
			return
		}
		got, guardOK := guardVerdict(t, line)
		if guardOK {
			if _, err := jsonrpc.EncodeMessage(got); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
		}
		byRule := strings.HasPrefix(strings.TrimLeft(line, " \t\r"), "[") ||
			strings.Count(line, "[")+strings.Count(line, "{") > 128 ||
			adaptertest.RepeatsKey(line, false)
		if _, sdkOK := sdkVerdict(t, line); sdkOK && !guardOK && !byRule {
			t.Fatalf("%q: the SDK reads it, the guard refuses it", line)
		}
	})
}

// TestStdioDrain: at the end of its input the transport answers every
// request it read, a tool call still running included, before it closes;
// past its drain limit it closes and logs what it left unanswered.
func TestStdioDrain(t *testing.T) {
	adaptertest.RunStdioDrain(t, func(ctx context.Context, b searchfetch.Backend, tools *searchfetch.Options, in io.ReadCloser, out io.Writer, drain time.Duration) error {
		server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
		if err := gosdk.Register(server, b, tools); err != nil {
			return err
		}
		tr := gosdk.NewStdioTransport(in, nopCloser{out})
		tr.DrainLimit = drain
		return server.Run(ctx, tr)
	})
}

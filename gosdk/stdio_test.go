package gosdk_test

import (
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/adaptertest"
)

// FuzzStdioTransport checks that every line NewStdioTransport passes to
// the go-sdk is one the SDK decodes: no line it lets through can end the
// session.
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
		tr := gosdk.NewStdioTransport(io.NopCloser(strings.NewReader(line+"\n")), nopCloser{io.Discard})
		conn, err := tr.Connect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		msg, err := conn.Read(t.Context())
		if err == io.EOF {
			return // refused
		}
		if err != nil {
			t.Fatalf("%q passed the guard but the SDK fails on it: %v", line, err)
		}
		if _, err := jsonrpc.EncodeMessage(msg); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
	})
}

package fuzz

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpid/mcpid/internal/stdioguard"
	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
)

// FuzzStdioGuard checks that every line is either passed on as the JSON
// value it holds, without the white space around it, as a JSON-RPC 2.0
// object, or answered with exactly one JSON-RPC error line
// of code -32700 or -32600, never both, and neither only for a response.
func FuzzStdioGuard(f *testing.F) {
	adaptertest.SeedHostileLines(f)
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"q"}}}`)
	f.Add(`{"jsonrpc":"2.0","id":"x","result":{}}`)
	f.Add(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") || strings.TrimSpace(line) == "" {
			return
		}
		var out bytes.Buffer
		g := stdioguard.New(strings.NewReader(line+"\n"), &out, nil)
		passed, err := io.ReadAll(g)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case len(passed) > 0 && out.Len() > 0:
			t.Fatalf("%q was both passed and answered", line)
		case len(passed) > 0:
			if string(passed) != strings.Trim(line, " \t\r")+"\n" {
				t.Fatalf("%q passed as %q", line, passed)
			}
			var m struct {
				JSONRPC string `json:"jsonrpc"`
			}
			if json.Unmarshal(passed, &m) != nil || m.JSONRPC != "2.0" {
				t.Fatalf("passed %q, not a JSON-RPC 2.0 object", line)
			}
		case out.Len() == 0:
			// Dropped: only a response, which is never answered.
			var m map[string]json.RawMessage
			err := json.Unmarshal([]byte(line), &m)
			_, method := m["method"]
			if err != nil || method || (m["result"] == nil && m["error"] == nil) {
				t.Fatalf("%q was neither passed nor answered", line)
			}
		default:
			var e struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct{ Code int }
			}
			if bytes.Count(out.Bytes(), []byte("\n")) != 1 || json.Unmarshal(out.Bytes(), &e) != nil || e.JSONRPC != "2.0" || e.ID == nil {
				t.Fatalf("%q answered with %q", line, out.String())
			}
			if e.Error.Code != stdioguard.CodeParseError && e.Error.Code != stdioguard.CodeInvalidRequest {
				t.Fatalf("%q answered with code %d", line, e.Error.Code)
			}
		}
	})
}

package adaptertest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/searchfetch"
)

// HostileLine is a line a client or a prompt-injected model can send a
// stdio server, with the JSON-RPC error code and id ("null" for none) the
// answer must carry.
type HostileLine struct {
	Name string
	Line string
	Code int
	ID   string
}

// HostileLines are the lines that ended a go-sdk stdio session, and the
// others a guard must answer.
func HostileLines() []HostileLine {
	deep := strings.Repeat("[", 998) + strings.Repeat("]", 998)
	return []HostileLine{
		{"arguments nested 998 deep", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"query":"x","a":` + deep + `}}}`, -32600, "7"},
		{"control byte", "\x01", -32700, "null"},
		{"not JSON", "hello, server", -32700, "null"},
		{"cut JSON", `{"jsonrpc":"2.0","id":3,"method":"ping"`, -32700, "null"},
		{"batch", `[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, -32600, "null"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, "null"},
		{"id 1e400", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, -32600, "null"},
		{"wrong version", `{"jsonrpc":"1.0","id":10,"method":"ping"}`, -32600, "10"},
		{"no version", `{"id":"a","method":"ping"}`, -32600, `"a"`},
		{"null", `null`, -32600, "null"},
		{"a string", `"ping"`, -32600, "null"},
		{"method twice", `{"jsonrpc":"2.0","id":11,"method":"tools/call","method":"tools/list"}`, -32600, "11"},
		{"method twice, once escaped", `{"jsonrpc":"2.0","id":12,"method":"tools/list","meth\u006fd":"ping"}`, -32600, "12"},
		{"id twice", `{"jsonrpc":"2.0","id":13,"id":14,"method":"ping"}`, -32600, "null"},
		{"line over 16 MiB", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":"` + strings.Repeat("a", 17<<20) + `"}}`, -32600, "null"},
	}
}

// SeedHostileLines adds to f's seed corpus every hostile line short
// enough to be a useful seed.
func SeedHostileLines(f *testing.F) {
	for _, h := range HostileLines() {
		if len(h.Line) < 1<<16 {
			f.Add(h.Line)
		}
	}
	// Valid messages the SDK fails on as written: white space after the
	// value, and the ids a float64 holds or null.
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"ping"} `)
	f.Add("\t{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\t")
	f.Add(`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`)
	f.Add(`{"jsonrpc":"2.0","id":99999999999999999999,"method":"ping"}`)
	f.Add(`{"jsonrpc":"2.0","id":null,"method":"ping"}`)
}

// MutatedLines returns n lines made from real JSON-RPC messages by one to
// three mutations each (white space, JSON and not, before, after and
// inside; other ids, null, 1.0 and 1e400 among them; a byte deleted; a
// key's case; a key repeated), deterministically: the corpus of the
// differentials between a guard and an SDK's real transport. No line holds
// a newline or starts a batch, which a guard refuses by rule.
func MutatedLines(n int) []string {
	bases := []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"fetch","arguments":{"id":"c1/s:r"}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}`,
	}
	ids := []string{`1.0`, `1e3`, `-0`, `1.5`, `99999999999999999999`, `1e400`, `null`, `true`, `{}`, `[]`, `"x"`, `-7`, `0.1e1`}
	space := []string{" ", "\t", "\r", "  \t", "\v", "\f", "\u00a0"}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	mutate := func(s string) string {
		switch rng.IntN(7) {
		case 0:
			return s + pick(space)
		case 1:
			return pick(space) + s
		case 2:
			i := strings.Index(s, `"id":`)
			if i < 0 {
				return s
			}
			rest := s[i+5:]
			return s[:i+5] + pick(ids) + rest[strings.IndexAny(rest, ",}"):]
		case 3:
			i := rng.IntN(len(s))
			return s[:i] + s[i+1:]
		case 4:
			i := rng.IntN(len(s) + 1)
			return s[:i] + pick(space) + s[i:]
		case 5:
			return strings.Replace(s, `"jsonrpc"`, `"JSONRPC"`, 1)
		default:
			if strings.Contains(s, `"method":`) {
				return strings.Replace(s, `"method":`, `"method":"tools/list","method":`, 1)
			}
			return strings.Replace(s, `"jsonrpc":`, `"jsonrpc":"2.0","jsonrpc":`, 1)
		}
	}
	lines := make([]string, 0, n)
	for len(lines) < n {
		line := pick(bases)
		for range 1 + rng.IntN(3) {
			line = mutate(line)
		}
		if !strings.HasPrefix(strings.TrimLeft(line, " \t\r"), "[") {
			lines = append(lines, line)
		}
	}
	return lines
}

// RepeatsKey reports whether line is a JSON object that repeats a key,
// compared decoded by encoding/json (with fold, as encoding/json matches
// keys to struct fields: bytes.EqualFold): the one line a hardened stdio
// transport refuses that its SDK would read. It is the slow reference of
// the differentials, written with encoding/json's tokenizer.
func RepeatsKey(line string, fold bool) bool {
	dec := json.NewDecoder(strings.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		key, _ := tok.(string)
		for _, k := range keys {
			if k == key || (fold && strings.EqualFold(k, key)) {
				return true
			}
		}
		keys = append(keys, key)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return false
		}
	}
	return false
}

// Serve serves an SDK's server with the tools over newline-delimited
// JSON-RPC on in and out, through the adapter's stdio guard, until in ends.
type Serve func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error

// RunHostileStdio sends each hostile line to a server that serve runs,
// then a tool call, on one session, and checks that the first gets its
// JSON-RPC error and the second its normal answer.
func RunHostileStdio(t *testing.T, serve Serve) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, inR, outW) }()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		_ = outR.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop")
		}
	})
	peer := &stdioPeer{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}`)
	require.Nil(t, peer.answer("1")["error"], "initialize")
	peer.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// A malformed response is never answered: the next answer is the
	// ping's.
	peer.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"your line was not JSON"}}`)
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	require.NotNil(t, peer.answer("2")["result"], "ping")

	for i, h := range HostileLines() {
		t.Run(h.Name, func(t *testing.T) {
			peer.t = t
			peer.send(h.Line)
			got := peer.answer(h.ID)
			e, _ := got["error"].(map[string]any)
			require.NotNil(t, e, "an error answers %s", h.Name)
			assert.EqualValues(t, h.Code, e["code"])
			assert.NotEmpty(t, e["message"])

			// The same session answers the next call.
			id := 100 + i
			peer.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"` + searchfetch.SearchName + `","arguments":{"query":"refund"}}}`)
			res, _ := peer.answer(itoa(id))["result"].(map[string]any)
			require.NotNil(t, res, "the call after %s", h.Name)
			assert.Equal(t, false, res["isError"] == true, "the call after %s succeeds", h.Name)
		})
	}
}

// stdioPeer is the client end of a stdio session.
type stdioPeer struct {
	t   *testing.T
	in  io.Writer
	out *bufio.Reader
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	_, err := io.WriteString(p.in, line+"\n")
	require.NoError(p.t, err)
}

// answer returns the next message with the JSON id id, skipping the
// server's notifications and requests.
func (p *stdioPeer) answer(id string) map[string]any {
	p.t.Helper()
	for {
		line, err := p.out.ReadBytes('\n')
		require.NoError(p.t, err)
		var m map[string]any
		require.NoError(p.t, json.Unmarshal(line, &m), "the server writes JSON lines: %q", line)
		if _, isCall := m["method"]; isCall {
			continue
		}
		got, err := json.Marshal(m["id"])
		require.NoError(p.t, err)
		require.Equal(p.t, id, string(got), "answer %s", line)
		return m
	}
}

// itoa formats a small non-negative int.
func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

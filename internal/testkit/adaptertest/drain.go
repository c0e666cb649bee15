package adaptertest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpid/mcpid/internal/testkit/syncbuf"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/searchfetch"
)

// ServeDrain serves an SDK's server with the tools over b, registered
// with tools, on in and out through the adapter's stdio transport, whose
// drain limit is drain, until in ends and the transport closes.
type ServeDrain func(ctx context.Context, b searchfetch.Backend, tools *searchfetch.Options, in io.ReadCloser, out io.Writer, drain time.Duration) error

// The lines of a script that pipes its requests into a stdio server.
const (
	scriptInit   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"0"}}}`
	scriptReady  = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	scriptSearch = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"refund"}}}`
	scriptFetch  = `{"jsonrpc":"2.0","id":"f","method":"tools/call","params":{"name":"fetch","arguments":{"id":"c1/orders:o1"}}}`
	scriptPing   = `{"jsonrpc":"2.0","id":3.0,"method":"ping"}`
)

// RunStdioDrain checks the end of a stdio server's input: every request
// read before it is answered before the transport closes, a tool call
// still running at the end included, within the drain limit; past the
// limit the transport closes and logs the requests left unanswered.
func RunStdioDrain(t *testing.T, serve ServeDrain) {
	t.Run("a script's requests", func(t *testing.T) {
		// printf '…\n…\n' | server: the input ends as soon as it is read.
		in := strings.Join([]string{scriptInit, scriptReady, scriptSearch, scriptFetch, scriptPing}, "\n") + "\n"
		var out syncbuf.Buffer
		err := serve(t.Context(), &Backend{}, nil, io.NopCloser(strings.NewReader(in)), &out, time.Minute)
		require.NoError(t, err)
		got := answers(t, out.String())
		for _, id := range []string{"1", "2", `"f"`, "3"} {
			require.Contains(t, got, id, "every request is answered: %s", out.String())
			assert.Nil(t, got[id]["error"], "answer %s", id)
		}
		assert.Equal(t, false, got["2"]["result"].(map[string]any)["isError"] == true, "the search succeeds")
		assert.Equal(t, false, got[`"f"`]["result"].(map[string]any)["isError"] == true, "the fetch succeeds")
	})
	t.Run("a call running when the input ends", func(t *testing.T) {
		b := NewStuck(1)
		in := &endSignal{r: strings.NewReader(strings.Join([]string{scriptInit, scriptReady, scriptSearch, scriptPing}, "\n") + "\n"), ended: make(chan struct{})}
		var out syncbuf.Buffer
		done := make(chan error, 1)
		go func() { done <- serve(t.Context(), b, &searchfetch.Options{Timeout: time.Hour}, in, &out, time.Hour) }()
		receive(t, b.Entered, "the search starts")
		receive(t, in.ended, "the input ends") // while the search runs
		select {
		case err := <-done:
			t.Fatalf("the transport closed with a call running: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		close(b.Release)
		require.NoError(t, wait(t, done))
		got := answers(t, out.String())
		require.Contains(t, got, "2", "the running call is answered: %s", out.String())
		assert.Equal(t, false, got["2"]["result"].(map[string]any)["isError"] == true, "with its result")
		assert.Contains(t, got, "3")
	})
	t.Run("the drain limit", func(t *testing.T) {
		logs := CaptureLogs(t)
		b := NewStuck(1)
		t.Cleanup(func() { close(b.Release) })
		in := &endSignal{r: strings.NewReader(strings.Join([]string{scriptInit, scriptReady, scriptSearch}, "\n") + "\n"), ended: make(chan struct{})}
		var out syncbuf.Buffer
		done := make(chan error, 1)
		go func() {
			// The tools' own log of the cancelled search goes elsewhere:
			// the records counted are the transport's.
			opts := &searchfetch.Options{Timeout: time.Hour, Logger: slog.New(slog.DiscardHandler)}
			done <- serve(t.Context(), b, opts, in, &out, 20*time.Millisecond)
		}()
		receive(t, b.Entered, "the search starts")
		require.NoError(t, wait(t, done), "the transport closes past the limit")
		got := answers(t, out.String())
		assert.Contains(t, got, "1")
		if a, ok := got["2"]; ok {
			// An SDK may answer the call it cancels when it closes.
			assert.Equal(t, true, a["error"] != nil || a["result"].(map[string]any)["isError"] == true, "not the backend's result: %v", a)
		}
		assert.Equal(t, 1, logs.Count(slog.LevelError), "the unanswered requests are logged")
		assert.Contains(t, logs.Text(), "unanswered_ids=2")
	})
}

// receive receives from ch within waitFor, or fails the test with what.
func receive(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitFor):
		t.Fatalf("%s: not within %v", what, waitFor)
	}
}

// wait returns serve's error once it has returned, within waitFor.
func wait(t *testing.T, done chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(waitFor):
		t.Fatal("the transport did not close")
		return nil
	}
}

// answers returns the responses among the JSON lines out, by their id as
// JSON (a number as its float64 writes it: 3.0 is "3").
func answers(t *testing.T, out string) map[string]map[string]any {
	t.Helper()
	got := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "a JSON line: %q", sc.Text())
		if _, isCall := m["method"]; isCall {
			continue
		}
		id, err := json.Marshal(m["id"])
		require.NoError(t, err)
		got[string(id)] = m
	}
	return got
}

// endSignal is a reader that closes ended when r ends.
type endSignal struct {
	r     io.Reader
	ended chan struct{}
	once  sync.Once
}

func (e *endSignal) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() { close(e.ended) })
	}
	return n, err
}

func (e *endSignal) Close() error { return nil }

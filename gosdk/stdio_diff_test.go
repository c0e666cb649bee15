package gosdk_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
)

// sdkVerdict reads line through the go-sdk's own stdio transport, with no
// guard, and returns the message it decodes. ok is false when the SDK
// fails on the line (the session would end) or reads it as other than
// exactly one message.
func sdkVerdict(t *testing.T, line string) (msg jsonrpc.Message, ok bool) {
	tr := &mcp.IOTransport{Reader: io.NopCloser(strings.NewReader(line + "\n")), Writer: nopCloser{io.Discard}}
	return readOne(t, tr)
}

// guardVerdict reads line through NewStdioTransport and returns the
// message the SDK decodes behind the guard; ok is false when the guard
// refused the line.
func guardVerdict(t *testing.T, line string) (msg jsonrpc.Message, ok bool) {
	tr := gosdk.NewStdioTransport(io.NopCloser(strings.NewReader(line+"\n")), nopCloser{io.Discard})
	tr.DrainLimit = -1 // nothing here answers the request read
	msg, ok = readOne(t, tr)
	if !ok && msg != nil {
		t.Fatalf("%q passed the guard but the SDK fails on it", line)
	}
	return msg, ok
}

// readOne connects tr and reads one message and then the end of input.
func readOne(t *testing.T, tr mcp.Transport) (jsonrpc.Message, bool) {
	ctx := context.Background()
	conn, err := tr.Connect(ctx)
	require.NoError(t, err)
	defer conn.Close()
	msg, err := conn.Read(ctx)
	if err != nil {
		return nil, false
	}
	if _, err := conn.Read(ctx); !errors.Is(err, io.EOF) {
		return msg, false
	}
	return msg, true
}

// TestStdioGuardAgreesWithSDK is a differential between the guard and the
// go-sdk's real stdio transport over mutations of real messages: every
// line the SDK reads as one message passes the guard and decodes to the
// same message, and every line the guard passes the SDK reads, as it is or
// as the value alone (a valid message with white space after it ended
// the session). The one exception is a line whose envelope repeats a key,
// which the SDK reads (keeping the last value) and the guard refuses. The
// guard's own other rules (batches, depth, size) are not in the
// mutations.
func TestStdioGuardAgreesWithSDK(t *testing.T) {
	counts := map[string]int{}
	for _, line := range adaptertest.MutatedLines(4000) {
		want, sdkOK := sdkVerdict(t, line)
		got, guardOK := guardVerdict(t, line)
		switch {
		case adaptertest.RepeatsKey(line, false):
			require.False(t, guardOK, "%q: the envelope repeats a key, the guard passes it", line)
			counts["the envelope repeats a key: the guard refuses it"]++
		case sdkOK && !guardOK:
			t.Fatalf("%q: the SDK reads it, the guard refuses it", line)
		case sdkOK:
			wb, err := jsonrpc.EncodeMessage(want)
			require.NoError(t, err)
			gb, err := jsonrpc.EncodeMessage(got)
			require.NoError(t, err)
			require.JSONEq(t, string(wb), string(gb), "%q", line)
			counts["both pass"]++
		case guardOK:
			// The raw line failed the SDK only for its framing: the
			// value alone, which the guard hands on, is a message.
			_, trimmedOK := sdkVerdict(t, strings.Trim(line, " \t\r"))
			require.True(t, trimmedOK, "%q: the guard passes it, the SDK fails on the value alone", line)
			counts["the guard's framing saves the session"]++
		default:
			counts["both refuse"]++
		}
	}
	t.Log(counts)
	assert.Positive(t, counts["both pass"])
	assert.Positive(t, counts["both refuse"])
	assert.Positive(t, counts["the guard's framing saves the session"])
	assert.Positive(t, counts["the envelope repeats a key: the guard refuses it"])
}

// TestStdioTrailingSpace is the line that ended every session: a valid
// message followed by white space reaches the SDK, and the session goes
// on to answer the next line.
func TestStdioTrailingSpace(t *testing.T) {
	for _, tail := range []string{" ", "\t", " \t ", "\r"} {
		line := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + tail
		in := io.NopCloser(strings.NewReader(line + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"))
		conn, err := gosdk.NewStdioTransport(in, nopCloser{io.Discard}).Connect(context.Background())
		require.NoError(t, err)
		for _, id := range []int64{1, 2} {
			msg, err := conn.Read(context.Background())
			require.NoError(t, err, "%q", tail)
			req, ok := msg.(*jsonrpc.Request)
			require.True(t, ok)
			assert.Equal(t, id, req.ID.Raw())
		}
		require.NoError(t, conn.Close())
	}
}

package downstream

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
)

// discard is a stdin that takes every write.
type discard struct{ io.Writer }

func (discard) Close() error { return nil }

// readOnly reads one message from tr, then the end of input; ok is false
// when the transport fails or holds anything but one message.
func readOnly(t *testing.T, tr mcp.Transport) (msg jsonrpc.Message, ok bool) {
	conn, err := tr.Connect(context.Background())
	require.NoError(t, err)
	defer conn.Close()
	msg, err = conn.Read(context.Background())
	if err != nil {
		return nil, false
	}
	_, err = conn.Read(context.Background())
	return msg, errors.Is(err, io.EOF)
}

// TestDownstreamGuardAgreesWithSDK is the differential of the downstream
// reader against the go-sdk's real transport: every line a downstream
// prints that the SDK reads as one message reaches the gateway as that
// message, and a line the guard drops never ends the session (the next
// line is read).
func TestDownstreamGuardAgreesWithSDK(t *testing.T) {
	next := `{"jsonrpc":"2.0","id":99,"result":{}}`
	for _, line := range adaptertest.MutatedLines(2000) {
		raw := &mcp.IOTransport{Reader: io.NopCloser(strings.NewReader(line + "\n")), Writer: discard{io.Discard}}
		want, sdkOK := readOnly(t, raw)

		conn, err := GuardedTransport(strings.NewReader(line+"\n"+next+"\n"), discard{io.Discard}, nil).Connect(context.Background())
		require.NoError(t, err)
		got, err := conn.Read(context.Background())
		require.NoError(t, err, "%q ended the session", line)
		if sdkOK {
			wb, _ := jsonrpc.EncodeMessage(want)
			gb, _ := jsonrpc.EncodeMessage(got)
			require.JSONEq(t, string(wb), string(gb), "%q", line)
		} else if resp, isResp := got.(*jsonrpc.Response); !isResp || resp.ID.Raw() != int64(99) {
			// Passed where the raw SDK fails: only white space around
			// a message the SDK reads alone.
			_, trimmedOK := readOnly(t, &mcp.IOTransport{Reader: io.NopCloser(strings.NewReader(strings.Trim(line, " \t\r") + "\n")), Writer: discard{io.Discard}})
			require.True(t, trimmedOK, "%q", line)
		}
		require.NoError(t, conn.Close())
	}
}

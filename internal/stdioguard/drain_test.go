package stdioguard

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpid/mcpid/internal/testkit/syncbuf"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAll reads g to its end on a goroutine and returns a channel that
// receives once it has.
func readAll(g *Guard) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, g)
		close(done)
	}()
	return done
}

// ended reports whether done is closed within d.
func ended(done <-chan struct{}, d time.Duration) bool {
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// TestDrainWaitsForAnswers: the end of input is held back until every
// request passed is answered under its id, however the SDK writes the id
// back; notifications, responses and null ids are not awaited; a
// cancelled request is not awaited; the guard's own refusal of a line
// with an awaited id answers nothing.
func TestDrainWaitsForAnswers(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"\u0061","method":"ping"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
		`{"jsonrpc":"2.0","id":8,"method":"slow"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`, // refused by the guard
	}, "\n") + "\n"
	var out syncbuf.Buffer
	g := New(strings.NewReader(in), &out, nil)
	g.SetDrainLimit(time.Hour)
	done := readAll(g)
	want := []string{"1.0", `"\u0061"`, "7"} // the refusal of the last line answered no 1
	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual(len(want), len(g.unanswered())) && strings.Contains(out.String(), "-32600")
	}, 10*time.Second, time.Millisecond)
	assert.ElementsMatch(t, want, g.unanswered())
	require.False(t, ended(done, 20*time.Millisecond), "held back: nothing answered")
	_, _ = g.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	_, _ = g.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}` + "\n"))
	_, _ = g.Write([]byte(`{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"m"}}` + "\n"))
	require.False(t, ended(done, 20*time.Millisecond), "held back: 7 unanswered")
	assert.ElementsMatch(t, []string{"7"}, g.unanswered())
	_, _ = g.Write([]byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[]}}` + "\n"))
	assert.True(t, ended(done, 10*time.Second), "every request answered")
}

// TestDrainLimit: past the drain limit the end is returned with requests
// unanswered, after a cancellation of each, under its id as the client
// wrote it; Close ends a drain at once; without a limit there is no wait.
func TestDrainLimit(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call"}` + "\n"
	t.Run("limit", func(t *testing.T) {
		const slow = `{"jsonrpc":"2.0","id":"a\u0062","method":"tools/call"}` + "\n"
		g := New(strings.NewReader(call+slow), io.Discard, nil)
		g.SetDrainLimit(10 * time.Millisecond)
		lines := make(chan string, 4)
		done := make(chan struct{})
		var end error
		go func() {
			defer close(done)
			r := bufio.NewReader(g)
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					end = err
					return
				}
				lines <- strings.TrimSuffix(l, "\n")
			}
		}()
		got := make([]string, 4)
		for i := range got {
			select {
			case got[i] = <-lines:
			case <-time.After(10 * time.Second):
				t.Fatalf("line %d not read; got %q", i, got)
			}
		}
		assert.Equal(t, []string{strings.TrimSuffix(call, "\n"), strings.TrimSuffix(slow, "\n")}, got[:2])
		reason := `,"reason":"the input ended and the drain limit passed"}}`
		assert.ElementsMatch(t, []string{
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1` + reason,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a\u0062"` + reason,
		}, got[2:])
		for _, l := range got[2:] {
			assert.NoError(t, CheckMessage([]byte(l)))
		}
		require.False(t, ended(done, 20*time.Millisecond), "the end waits for the cancelled calls' answers")
		_, _ = g.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32800,"message":"cancelled"}}` + "\n"))
		_, _ = g.Write([]byte(`{"jsonrpc":"2.0","id":"ab","result":{}}` + "\n"))
		require.True(t, ended(done, 10*time.Second), "the end, once they are answered")
		assert.ErrorIs(t, end, io.EOF)
		assert.Empty(t, g.unanswered())
	})
	t.Run("close", func(t *testing.T) {
		g := New(strings.NewReader(call), io.Discard, nil)
		g.SetDrainLimit(time.Hour)
		done := readAll(g)
		require.False(t, ended(done, 20*time.Millisecond))
		require.NoError(t, g.Close())
		assert.True(t, ended(done, 10*time.Second))
	})
	t.Run("none", func(t *testing.T) {
		g := New(strings.NewReader(call), io.Discard, nil)
		assert.True(t, ended(readAll(g), 10*time.Second))
	})
}

// TestResponseID: the id of a response, read no further than its id and
// outcome; requests, notifications and what is not JSON have none.
func TestResponseID(t *testing.T) {
	tests := []struct {
		msg, want string
		ok        bool
	}{
		{`{"jsonrpc":"2.0","id":3,"result":{"x":"}"}}`, "3", true},
		{`{"result":{},"jsonrpc":"2.0","id":"a"}`, `"a"`, true},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":1}}`, "3", true},
		{`{"jsonrpc":"2.0","id":3,"result":{"cut`, "3", true}, // not read past the id
		{`{"jsonrpc":"2.0","id":3,"method":"ping"}`, "", false},
		{`{"jsonrpc":"2.0","method":"x","params":{}}`, "", false},
		{`{"jsonrpc":"2.0","id":3}`, "", false},
		{`{"id":"unterminated`, "", false},
		{`{"result":1,"id":"unterminated`, "", false},
		{`{"result":1,"id":{"a":"unterminated`, "", false},
		{`{"result":1,"unterminated`, "", false},
		{"{\"result\":1,\"id\":\"a\x01\"}", "", false},
		{`[]`, "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		id, ok := responseID([]byte(tt.msg))
		assert.Equal(t, tt.ok, ok, "%s", tt.msg)
		assert.Equal(t, tt.want, string(id), "%s", tt.msg)
	}
}

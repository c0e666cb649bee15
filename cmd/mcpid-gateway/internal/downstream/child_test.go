package downstream

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpid/mcpid"
)

// TestChildNextSession: NextSession waits for a session other than the
// one it is given, and gives up when its context ends; DropSession
// forgets only the session it names.
func TestChildNextSession(t *testing.T) {
	c := NewChild("a", nil)
	old, next := new(mcp.ClientSession), new(mcp.ClientSession)
	c.SetSession(old)
	got := make(chan *mcp.ClientSession)
	go func() { got <- c.NextSession(t.Context(), old) }()
	require.Eventually(t, func() bool { // it waits before the next is set
		c.swap.mu.Lock()
		defer c.swap.mu.Unlock()
		return c.swap.next != nil
	}, time.Second, time.Millisecond)
	c.SetSession(next)
	assert.Same(t, next, <-got, "the session that replaced old")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.Nil(t, c.NextSession(ctx, next), "no other session before ctx ended")

	c.DropSession(old)
	assert.Same(t, next, c.Session(), "old is no longer its session")
	c.DropSession(next)
	assert.Nil(t, c.Session())
}

// TestChildFirstAttempt: the first attempt's error is kept, later ones
// are not.
func TestChildFirstAttempt(t *testing.T) {
	c := NewChild("a", nil)
	first := assert.AnError
	c.FirstAttempt(first)
	c.FirstAttempt(nil)
	select {
	case <-c.First():
	default:
		t.Fatal("First is not closed after the first attempt")
	}
	assert.Equal(t, first, c.FirstErr())
}

// TestListingsCovers: a URI is covered when it is listed or a template
// matches it.
func TestListingsCovers(t *testing.T) {
	tmpl, err := uritemplate.New("file:///docs/{name}")
	require.NoError(t, err)
	l := &Listings{
		Resources: []*mcp.Resource{{URI: "file:///a"}, {URI: "file:///b"}},
		Matchers:  []*uritemplate.Template{tmpl},
	}
	assert.True(t, l.Covers("file:///b"), "listed")
	assert.True(t, l.Covers("file:///docs/x"), "matched by the template")
	assert.False(t, l.Covers("file:///c"))
	assert.True(t, l.ListedOnce(), "the first listing")
	assert.False(t, l.ListedOnce())
}

// TestAwaitStart: AwaitStart reports whether the latch opened: not when
// the start is over first; an open latch never waits.
func TestAwaitStart(t *testing.T) {
	l, over := NewLatch(), make(chan struct{})
	close(over)
	assert.False(t, AwaitStart(t.Context(), l.Done(), over), "the start is over and the latch is not open")
	l.Open()
	l.Open()
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	assert.True(t, AwaitStart(ctx, l.Done(), make(chan struct{})), "the latch is open")
}

// TestUnavailableError: the error carries the resource_unavailable
// envelope.
func TestUnavailableError(t *testing.T) {
	var werr *jsonrpc.Error
	require.ErrorAs(t, UnavailableError("x"), &werr)
	var e mcpid.Error
	require.NoError(t, json.Unmarshal(werr.Data, &e), "the envelope is the error's data")
	assert.Equal(t, mcpid.CodeResourceUnavailable, e.Code)
	assert.Equal(t, `the server behind "x" is not available`, e.Message())
}

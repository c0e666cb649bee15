//lint:file-ignore SA1019 MCP 2026-07-28 deprecates logging, which stays functional for at least a year; the gateway relays it while downstreams and hosts use it.

package main

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// relay passes a downstream's progress notifications and log messages on
// to the callers whose calls they belong to. It reads them on the
// downstream's connection (see relayConn), in the order they came: the
// SDK hands notifications to its handlers on a goroutine of their own, so
// that a call's answer could overtake the notifications sent before it,
// and they would reach no one.
//
// A progress notification names its call by the progress token, which the
// gateway makes its own for each call that asked for progress, and maps
// back to the caller's token. A log message names no call: it goes to the
// caller of every call in flight to that downstream (exactly its caller
// when there is one), and to no one when none is. Each caller's session
// filters logs by the level it set.
type relay struct {
	mu     sync.Mutex
	tokens map[string]progressTarget // the gateway's token -> the caller's
	calls  map[*mcp.ServerSession]int
}

// progressTarget is where a call's progress goes.
type progressTarget struct {
	session *mcp.ServerSession
	token   any
}

// nextToken numbers the progress tokens the gateway gives downstreams.
var nextToken atomic.Uint64

// track registers the call req, to be sent as params, and returns the
// function that ends it.
func (r *relay) track(req *mcp.CallToolRequest, params *mcp.CallToolParams) (done func()) {
	ss := req.Session
	var token string
	caller := req.Params.GetProgressToken()
	if caller != nil {
		token = "gateway-" + strconv.FormatUint(nextToken.Add(1), 10)
		params.SetProgressToken(token)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[*mcp.ServerSession]int{}
		r.tokens = map[string]progressTarget{}
	}
	r.calls[ss]++
	if caller != nil {
		r.tokens[token] = progressTarget{ss, caller}
	}
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.calls[ss]--; r.calls[ss] == 0 {
			delete(r.calls, ss)
		}
		delete(r.tokens, token)
	}
}

// progress passes p on to the caller of its call, if that call is still in
// flight.
func (r *relay) progress(ctx context.Context, timeout time.Duration, p *mcp.ProgressNotificationParams) {
	token, _ := p.ProgressToken.(string)
	r.mu.Lock()
	target, ok := r.tokens[token]
	r.mu.Unlock()
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	_ = target.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: target.token,
		Progress:      p.Progress,
		Total:         p.Total,
		Message:       p.Message,
	})
}

// log passes p on to the callers of the calls in flight.
func (r *relay) log(ctx context.Context, timeout time.Duration, p *mcp.LoggingMessageParams) {
	r.mu.Lock()
	sessions := make([]*mcp.ServerSession, 0, len(r.calls))
	for ss := range r.calls {
		sessions = append(sessions, ss)
	}
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	for _, ss := range sessions {
		_ = ss.Log(ctx, p)
	}
}

// relayTransport is a downstream's transport with its connection wrapped
// in a relayConn.
type relayTransport struct {
	mcp.Transport
	relay   *relay
	timeout time.Duration
}

// Connect connects the transport and wraps the connection.
func (t relayTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &relayConn{Connection: conn, relay: t.relay, timeout: t.timeout}, nil
}

// relayConn relays the progress notifications and log messages it reads
// before it returns them, and so before the answer that follows them.
type relayConn struct {
	mcp.Connection
	relay   *relay
	timeout time.Duration
}

// Read reads the next message, relaying it first if it is a progress
// notification or a log message.
func (c *relayConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && !req.IsCall() {
		switch req.Method {
		case "notifications/progress":
			var p mcp.ProgressNotificationParams
			if json.Unmarshal(req.Params, &p) == nil {
				c.relay.progress(ctx, c.timeout, &p)
			}
		case "notifications/message":
			var p mcp.LoggingMessageParams
			if json.Unmarshal(req.Params, &p) == nil {
				c.relay.log(ctx, c.timeout, &p)
			}
		}
	}
	return msg, err
}

// withLogging returns caps with the logging capability, which a gateway
// that relays its downstreams' logs declares.
func withLogging(caps *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	caps.Logging = &mcp.LoggingCapabilities{}
	return caps
}

// askForLogs asks a downstream that has logs for all of them, so that each
// caller's session can filter them by the level it set. A downstream
// without the logging capability is not asked.
func askForLogs(ctx context.Context, cs *mcp.ClientSession) error {
	init := cs.InitializeResult()
	if init == nil || init.Capabilities == nil || init.Capabilities.Logging == nil {
		return nil
	}
	return cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"})
}

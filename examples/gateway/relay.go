package main

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// relay passes a downstream's progress notifications and log messages on
// to the callers whose calls they belong to.
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
	ctx, cancel := context.WithTimeout(ctx, timeout)
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
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, ss := range sessions {
		_ = ss.Log(ctx, p)
	}
}

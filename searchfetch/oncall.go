package searchfetch

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mcpid/mcpid"
)

// Call is the outcome of one tool call, as [Options.OnCall] hears it: what
// an audit log, metrics and traces need. It is built only when OnCall is set.
type Call struct {
	Tool   string // the tool's name, as registered
	Caller Caller // the verified caller; zero when there is none
	// Connections are the connections read, never an alias.
	Connections []string
	ID          string     // the id a fetch resolved, as given
	Code        mcpid.Code // the code the model saw; "" for a success
	Err         error      // the error behind a tool error, for logs only
	// Start is when the call began, and Duration how long its answer took.
	Start    time.Time
	Duration time.Duration
	// BackendStart and Backend time the backend calls, Authorize the authorizer.
	BackendStart time.Time
	Backend      time.Duration
	Authorize    time.Duration
	// Shown, Dropped and Denied count a search's hits: shown, left out as
	// unfetchable, and left out for a connection the caller may not read.
	Shown, Dropped, Denied int
	Bytes                  int // bytes of the answer's text and structuredContent
}

// callKey is the context key under which a call's record is found.
type callKey struct{}

// callRecord is the context of a call made while OnCall is set: the
// context the call came with, and the call's outcome as it builds up. The
// record is the context, so that the record and the context that carries
// it are one allocation.
type callRecord struct {
	context.Context
	call Call
	// shown are the hits a search's text shows, as the search kept them
	// (ids sealed, aliased connections), whose connections Connections
	// reads.
	shown []mcpid.Hit
	// conn holds the one connection of a fetch: Connections without an
	// allocation of its own.
	conn [1]string
	// backend and authorize are the time spent in each, in nanoseconds;
	// backendAt is when the first backend call began, as nanoseconds
	// after Start plus one (0: none yet). Authorizations may run at once.
	backend, authorize, backendAt atomic.Int64
}

// Value returns the record for callKey, and otherwise the value of the
// call's own context.
func (r *callRecord) Value(key any) any {
	if key == (callKey{}) {
		return r
	}
	return r.Context.Value(key)
}

// startCall returns the context of a call of tool that OnCall will hear
// of, which [Tools.endCall] reports. OnCall must be set.
func (t *Tools) startCall(ctx context.Context, tool string) context.Context {
	r := &callRecord{Context: ctx, call: Call{Tool: tool, Start: time.Now()}}
	r.call.Caller, _ = CallerFrom(ctx)
	return r
}

// endCall completes the record of the call whose context ctx is (from
// [Tools.startCall]) with its answer res, and hands it to OnCall.
func (t *Tools) endCall(ctx context.Context, res *Result) {
	r := ctx.(*callRecord)
	c := &r.call
	c.Duration = time.Since(c.Start)
	c.Backend = time.Duration(r.backend.Load())
	c.Authorize = time.Duration(r.authorize.Load())
	if at := r.backendAt.Load(); at > 0 {
		c.BackendStart = c.Start.Add(time.Duration(at - 1))
	}
	c.Err, c.Bytes = res.Err, len(res.Text)+len(res.StructuredContent)
	switch {
	case res.IsError:
		c.Code = envelopeCode(res.Text)
	case c.Tool == t.opts.SearchName:
		c.Shown, c.Connections = len(r.shown), t.shownConnections(r.shown)
	}
	t.opts.OnCall(r.Context, *c)
}

// recordOf returns the record of the call whose context ctx is, or nil
// when OnCall is not set.
func (t *Tools) recordOf(ctx context.Context) *callRecord {
	if t.opts.OnCall == nil {
		return nil
	}
	r, _ := ctx.Value(callKey{}).(*callRecord)
	return r
}

// noteSelection records what a search selected of its backend's hits. It
// is inlined, and costs a test where OnCall is not set.
func (t *Tools) noteSelection(ctx context.Context, sel selection) {
	if t.opts.OnCall != nil {
		selected(ctx, sel.dropped, sel.denied)
	}
}

// selected records, in the record that ctx is, the counts of the hits a
// search left out. It is not inlined, so that noteSelection is.
//
//go:noinline
func selected(ctx context.Context, dropped, denied int) {
	if r, ok := ctx.Value(callKey{}).(*callRecord); ok {
		r.call.Dropped, r.call.Denied = dropped, denied
	}
}

// noteShown records the hits a search's text shows, as the renderer said
// it showed them. It is inlined, and costs a test where OnCall is not set.
func (t *Tools) noteShown(ctx context.Context, hits []mcpid.Hit) {
	if t.opts.OnCall != nil {
		shownHits(ctx, hits)
	}
}

// shownHits records, in the record that ctx is, the hits a search's text
// shows. It is not inlined, so that noteShown is.
//
//go:noinline
func shownHits(ctx context.Context, hits []mcpid.Hit) {
	if r, ok := ctx.Value(callKey{}).(*callRecord); ok {
		r.shown = hits
	}
}

// noteFetch records what a fetch asked to read once its arguments
// resolved. It is inlined, and costs a test where OnCall is not set.
func (t *Tools) noteFetch(ctx context.Context, a Access) {
	if t.opts.OnCall != nil {
		fetched(ctx, a.ConnectionID, a.ID)
	}
}

// fetched records, in the record that ctx is, the connection and the id
// of a fetch. It is not inlined, so that noteFetch is.
//
//go:noinline
func fetched(ctx context.Context, conn, id string) {
	if r, ok := ctx.Value(callKey{}).(*callRecord); ok {
		r.conn[0], r.call.ID = conn, id
		r.call.Connections = r.conn[:]
	}
}

// timed adds the time since start to the backend's time, or to the
// authorizer's when authorizer is set.
func (r *callRecord) timed(authorizer bool, start time.Time) {
	d := int64(time.Since(start))
	if authorizer {
		r.authorize.Add(d)
		return
	}
	r.backendAt.CompareAndSwap(0, int64(start.Sub(r.call.Start))+1)
	r.backend.Add(d)
}

// shownConnections returns the distinct connections of shown, the hits a
// search's text shows, as the backend gave them, in the order shown.
func (t *Tools) shownConnections(shown []mcpid.Hit) []string {
	var conns []string
	for _, h := range shown {
		if conn := t.realConnection(h.ConnectionID); !slices.Contains(conns, conn) {
			conns = append(conns, conn)
		}
	}
	return conns
}

// envelopeCode returns the code of the error envelope text.
func envelopeCode(text string) mcpid.Code {
	var v struct {
		Code mcpid.Code `json:"code"`
	}
	_ = json.Unmarshal([]byte(text), &v) // the tools wrote the envelope
	return v.Code
}

//lint:file-ignore SA1019 MCP 2026-07-28 deprecates logging, which stays functional for at least a year; the gateway relays it while downstreams and hosts use it.

package downstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Relay passes a downstream's progress notifications and log messages on
// to the callers whose calls they belong to.
//
// The downstream's connection (see [Relay.Transport]) hands each one, as
// it reads it, to its call's queue; a goroutine of the call's own, started
// at its first notification (most calls get none, and cost no goroutine),
// sends it on to the caller, with the call's context (over HTTP, that context names the
// request the notification belongs to, so that it goes out on that
// request's stream), and sends the last of them before the call's answer.
// So the downstream's reader never waits on a caller, and a caller never
// gets a notification of its call after the answer. A call whose queue is
// full (relayQueue notifications waiting for a caller that does not read)
// loses the notifications beyond.
//
// A progress notification names its call by the progress token, which the
// gateway makes its own for each call that asked for progress and maps
// back to the caller's token. A log message names no call: it goes to the
// caller only when every call in flight to that downstream is that
// caller's (see [Relay.Owner]), and to no one otherwise, so that no client
// reads another's logs. A request the gateway stopped waiting for (its
// timeout passed, or its caller cancelled it) still counts, since the
// downstream may still be working on it and logging for it (a go-sdk
// server answers a cancelled request once its handler returns), until the
// downstream answers it, the connection it was sent on ends (the
// downstream exited or is restarted), or one more timeout has passed: MCP
// asks a server to stop work on a cancelled request and not to answer it
// (the TypeScript SDK sends nothing), so without that bound one cancelled
// call would keep every caller's logs and requests from them for good.
//
// Every relayed request asks the downstream for logs of every level (in
// its _meta, as MCP 2026-07-28 asks; the session's level is set once at
// connect, see [AskForLogs]), and each message goes on through the SDK's
// [mcp.ServerSession.Log], which sends a caller what its level asks for:
// the level of its request's _meta on MCP 2026-07-28, else the one it set
// with logging/setLevel; a caller that asked for no level gets no logs.
// The zero Relay is ready to use.
type Relay struct {
	// Logger is told, at Error, of a panic while a notification was sent
	// on to a caller (the notification is lost, nothing else); nil logs
	// nothing.
	Logger *slog.Logger

	mu      sync.Mutex
	byToken map[string]*Call // the gateway's progress token -> its call
	calls   map[*Call]bool   // the calls in flight, and the stale ones (see Call.stale)
}

// relayQueue bounds the notifications that wait for one call's caller.
const relayQueue = 64

// Call is one call in flight, whose notifications are relayed: what
// [Relay.Start] returns and [Relay.End] takes.
type Call struct {
	ctx     context.Context // the caller's
	session *mcp.ServerSession
	user    string        // the caller's verified user id; "" for none
	token   any           // the caller's progress token; nil when it asked for none
	ours    string        // the progress token the downstream was given for it
	timeout time.Duration // bound on sending one notification, and on how long a stale call counts

	// Guarded by the relay's mu. The channels are made, and the
	// goroutine that sends the notifications on is started, at the
	// call's first notification (see Relay.put): nil until then.
	queue    chan any      // *mcp.ProgressNotificationParams or *mcp.LoggingMessageParams
	answered chan struct{} // closed once the call's answer is in
	drained  chan struct{} // closed once the queue is sent and empty
	conn     *relayConn    // the connection the request was sent on; nil before
	id       jsonrpc.ID    // its JSON-RPC id on conn
	done     bool          // the downstream's answer was read
	stale    bool          // ended at the gateway before the downstream answered

	// unknownSession is set when the downstream refused the request for
	// a session it does not know (see SessionRefused).
	unknownSession atomic.Bool
}

// SessionRefused reports whether the downstream refused c's request as it
// was sent, unread, for a session it does not know (HTTP 404 to a request
// with a session id: the server ended the session, or restarted). The
// request can then be sent again on a new session: the server never acted
// on it. An answer that fails later (a stream cut mid-call) does not count.
func (c *Call) SessionRefused() bool { return c.unknownSession.Load() }

// callKey is the context key under which a request's context carries its
// Call, for relayConn.Write to learn the JSON-RPC id it is sent with.
type callKey struct{}

// nextToken numbers the progress tokens the gateway gives downstreams.
var nextToken atomic.Uint64

// Start registers the caller's request req, to be sent downstream as out,
// and starts sending its notifications on, each within timeout; End must
// follow. With metaLevel (see [MetaLevel]) it asks the downstream for logs
// of every level in out's _meta; it gives out a progress token of the
// gateway's own when req asked for progress (when out can carry one). The request must be sent with the
// returned context, which tells the relay which JSON-RPC request is the
// call's, so that the call counts until the downstream answers it.
func (r *Relay) Start(ctx context.Context, req mcp.Request, out mcp.Params, metaLevel bool, timeout time.Duration) (context.Context, *Call) {
	c := &Call{timeout: timeout}
	c.ctx = context.WithValue(ctx, callKey{}, c)
	c.session, _ = req.GetSession().(*mcp.ServerSession)
	if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
		c.user = extra.TokenInfo.UserID
	}
	if in, ok := Params(req).(mcp.RequestParams); ok {
		c.token = in.GetProgressToken()
	}
	if metaLevel {
		meta := out.GetMeta()
		if meta == nil {
			meta = map[string]any{}
		}
		meta[mcp.MetaKeyLogLevel] = "debug"
		out.SetMeta(meta)
	}
	if p, ok := out.(mcp.RequestParams); ok && c.token != nil {
		c.ours = "gateway-" + strconv.FormatUint(nextToken.Add(1), 10)
		p.SetProgressToken(c.ours)
	} else {
		c.token = nil
	}
	r.mu.Lock()
	if r.calls == nil {
		r.calls = map[*Call]bool{}
		r.byToken = map[string]*Call{}
	}
	r.calls[c] = true
	if c.token != nil {
		r.byToken[c.ours] = c
	}
	r.mu.Unlock()
	return c.ctx, c
}

// End ends c at the gateway, once its answer is in or the gateway stopped
// waiting for it, and returns when every notification that came before
// has been sent on. A call the downstream has not answered yet stays
// counted by Owner, stale, until it does, its connection ends, or the
// call's timeout passes once more: the downstream may still act on it.
func (r *Relay) End(c *Call) {
	r.mu.Lock()
	delete(r.byToken, c.ours)
	if c.done || c.conn == nil || c.conn.closed {
		r.forget(c)
	} else {
		c.stale = true
		time.AfterFunc(c.timeout, func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.calls[c] {
				r.forget(c)
			}
		})
	}
	forwarding := c.queue != nil
	r.mu.Unlock()
	if forwarding {
		close(c.answered)
		<-c.drained
	}
}

// Owner returns the call through which a message that names no call (a log
// message, a sampling or elicitation request) may reach a caller: one of
// the calls in flight when every one of them is the same caller's (the
// same client session, or the same verified user), and nil otherwise,
// so that such a message never reaches another user.
func (r *Relay) Owner() *Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.owner()
}

// Counted returns how many calls count as in flight: those the gateway
// waits for, and the stale ones (see End).
func (r *Relay) Counted() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// owner is Owner with r.mu held. A stale call counts as its caller's, but
// carries nothing: its caller has had its answer.
func (r *Relay) owner() *Call {
	var to, live *Call
	for c := range r.calls {
		if to != nil && !c.sameCaller(to) {
			return nil
		}
		to = c
		if !c.stale {
			live = c
		}
	}
	return live
}

// forget unregisters c, with r.mu held.
func (r *Relay) forget(c *Call) {
	delete(r.calls, c)
	if c.conn != nil && c.conn.sent[c.id] == c {
		delete(c.conn.sent, c.id)
	}
}

// sent records that c's request goes out on conn with id.
func (r *Relay) sent(c *Call, conn *relayConn, id jsonrpc.ID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.calls[c] || conn.closed {
		return
	}
	if conn.sent == nil {
		conn.sent = map[jsonrpc.ID]*Call{}
	}
	c.conn, c.id = conn, id
	conn.sent[id] = c
}

// answer records the downstream's answer to the request id on conn, which
// ends its call if it is stale.
func (r *Relay) answer(conn *relayConn, id jsonrpc.ID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := conn.sent[id]
	if c == nil {
		return
	}
	c.done = true
	delete(conn.sent, id)
	if c.stale {
		delete(r.calls, c)
	}
}

// closed forgets the stale calls sent on conn, which has ended: the
// downstream can act on none of them any more.
func (r *Relay) closed(conn *relayConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	conn.closed = true
	for id, c := range conn.sent {
		delete(conn.sent, id)
		c.conn = nil
		if c.stale {
			delete(r.calls, c)
		}
	}
}

// sameCaller reports whether c and o come from one caller: one session,
// or one verified user.
func (c *Call) sameCaller(o *Call) bool {
	return c.session == o.session || (c.user != "" && c.user == o.user)
}

// Session returns the caller's session, and its context: what a request
// relayed to that caller is sent with.
func (c *Call) Session() (context.Context, *mcp.ServerSession) { return c.ctx, c.session }

// forward sends c's notifications on until its answer is in, then the
// ones still queued. A panic while one is sent (in the SDK, or in a
// sending middleware) loses that one: the others are still sent, and End
// still returns.
func (c *Call) forward(logger *slog.Logger) {
	defer close(c.drained)
	for {
		select {
		case n := <-c.queue:
			c.send(logger, n)
		case <-c.answered:
			for {
				select {
				case n := <-c.queue:
					c.send(logger, n)
				default:
					return
				}
			}
		}
	}
}

// send sends one notification to the caller, within c.timeout, and
// recovers a panic on the way, telling logger of it.
func (c *Call) send(logger *slog.Logger, n any) {
	if c.session == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil && logger != nil {
			method := "notifications/message"
			if _, ok := n.(*mcp.ProgressNotificationParams); ok {
				method = "notifications/progress"
			}
			logger.Error("gateway: panic while relaying a notification", "method", method,
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
	defer cancel()
	switch n := n.(type) {
	case *mcp.ProgressNotificationParams:
		n.ProgressToken = c.token
		_ = c.session.NotifyProgress(ctx, n)
	case *mcp.LoggingMessageParams:
		// Log sends what the caller's level asks for: its request's
		// level (MCP 2026-07-28, which ctx carries), or its session's.
		_ = c.session.Log(ctx, n)
	}
}

// progress queues p for its call, if that call is in flight.
func (r *Relay) progress(p *mcp.ProgressNotificationParams) {
	token, _ := p.ProgressToken.(string)
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.byToken[token]; c != nil {
		r.put(c, p)
	}
}

// log queues p for the caller that owns every call in flight, if one does.
func (r *Relay) log(p *mcp.LoggingMessageParams) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if to := r.owner(); to != nil {
		r.put(to, p)
	}
}

// put queues n for c unless c's queue is full, and starts sending c's
// notifications on at its first. Called with the relay's mu held, so that
// End, which takes it, sees every notification put before it (and none
// comes after: End takes c out of byToken, and a call it ends is no
// owner).
func (r *Relay) put(c *Call, n any) {
	if c.queue == nil {
		c.queue = make(chan any, relayQueue)
		c.answered = make(chan struct{})
		c.drained = make(chan struct{})
		go c.forward(r.Logger)
	}
	select {
	case c.queue <- n:
	default:
	}
}

// Transport returns t with its connections wrapped so that the progress
// notifications and log messages they read reach r's calls.
func (r *Relay) Transport(t mcp.Transport) mcp.Transport {
	return relayTransport{t, r}
}

// relayTransport is a downstream's transport with its connection wrapped
// in a relayConn.
type relayTransport struct {
	mcp.Transport
	relay *Relay
}

// Connect connects the transport and wraps the connection.
func (t relayTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &relayConn{Connection: conn, relay: t.relay}, nil
}

// relayConn queues the progress notifications and log messages it reads
// for their calls before it returns them, and so before the answer that
// follows them. It also follows which of the requests it writes are the
// relay's calls, and which of them the downstream answered.
type relayConn struct {
	mcp.Connection
	relay *Relay

	// Guarded by the relay's mu.
	sent   map[jsonrpc.ID]*Call // the calls written on it and not answered yet
	closed bool                 // the connection ended
}

// Write writes msg, recording first which call it is the request of, when
// it is one (its context tells).
func (c *relayConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	call, _ := ctx.Value(callKey{}).(*Call)
	if !ok || !req.IsCall() || call == nil {
		return c.Connection.Write(ctx, msg)
	}
	c.relay.sent(call, c, req.ID)
	err := c.Connection.Write(ctx, msg)
	if errors.Is(err, mcp.ErrSessionMissing) {
		call.unknownSession.Store(true)
	}
	if err != nil && ctx.Err() == nil {
		// Not written, and never to be: nothing will answer it. A write
		// cut short by its context may still go out (see asyncWriter).
		c.relay.answer(c, req.ID)
	}
	return err
}

// Close closes the connection, and forgets the calls left on it.
func (c *relayConn) Close() error {
	c.relay.closed(c)
	return c.Connection.Close()
}

// Read reads the next message, queuing it first for its call if it is a
// progress notification or a log message, and recording the answer to a
// call. A connection that fails to read has ended.
func (c *relayConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.relay.closed(c)
		return msg, err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.relay.answer(c, resp.ID)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() {
		switch req.Method {
		case "notifications/progress":
			var p mcp.ProgressNotificationParams
			if json.Unmarshal(req.Params, &p) == nil {
				c.relay.progress(&p)
			}
		case "notifications/message":
			var p mcp.LoggingMessageParams
			if json.Unmarshal(req.Params, &p) == nil {
				c.relay.log(&p)
			}
		}
	}
	return msg, err
}

// WithLogging returns caps with the logging capability, which a gateway
// that relays its downstreams' logs declares.
func WithLogging(caps *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	caps.Logging = &mcp.LoggingCapabilities{}
	return caps
}

// MetaLevel reports whether each request to the downstream of session cs
// must carry the log level in its _meta to get logs: its session speaks
// MCP 2026-07-28 or later, which reads a request's level there, or it is
// reached over HTTP (remote) and keeps no session, so that the level set
// when it connected ([AskForLogs]) reached a session that ended with that
// request (a -stateless gateway reads the _meta level on every version).
// Otherwise the session's level applies to every request, and a _meta
// level would only cost both sides a decode.
func MetaLevel(cs *mcp.ClientSession, remote bool) bool {
	init := cs.InitializeResult()
	return init == nil || init.ProtocolVersion >= "2026-07-28" || (remote && cs.ID() == "")
}

// AskForLogs asks a downstream that has logs for all of them, on its
// session (a go-sdk downstream sends none until a level is set), so that
// each caller gets what its own level asks for. A downstream without the
// logging capability is not asked.
func AskForLogs(ctx context.Context, cs *mcp.ClientSession) error {
	init := cs.InitializeResult()
	if init == nil || init.Capabilities == nil || init.Capabilities.Logging == nil {
		return nil
	}
	return cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"})
}

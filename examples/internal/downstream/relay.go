//lint:file-ignore SA1019 MCP 2026-07-28 deprecates logging, which stays functional for at least a year; the gateway relays it while downstreams and hosts use it.

package downstream

import (
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Relay passes a downstream's progress notifications and log messages on
// to the callers whose calls they belong to.
//
// The downstream's connection (see [Relay.Transport]) hands each one, as
// it reads it, to its call's queue; the call's own goroutine sends it on to the
// caller, with the call's context (over HTTP, that context names the
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
// caller when all the calls in flight to that downstream come from one
// client session, and to no one otherwise, so that no client reads
// another's logs.
//
// Log messages go on as the downstream sent them, as they would reach a
// client connected to it directly: a caller that set no level gets them
// all, and one that did (logging/setLevel for its session, or the call's
// own level on MCP 2026-07-28) gets those at that level and above (see
// levels). The zero Relay is ready to use.
type Relay struct {
	mu      sync.Mutex
	byToken map[string]*Call // the gateway's progress token -> its call
	calls   map[*Call]bool   // the calls in flight
}

// relayQueue bounds the notifications that wait for one call's caller.
const relayQueue = 64

// Call is one call in flight, whose notifications are relayed: what
// [Relay.Start] returns and [Relay.End] takes.
type Call struct {
	ctx      context.Context // the caller's
	session  *mcp.ServerSession
	token    any              // the caller's progress token; nil when it asked for none
	level    mcp.LoggingLevel // the least level of log message the caller wants; "" for all
	ours     string           // the progress token the downstream was given for it
	timeout  time.Duration    // bound on sending one notification
	queue    chan any         // *mcp.ProgressNotificationParams or *mcp.LoggingMessageParams
	answered chan struct{}    // closed once the call's answer is in
	drained  chan struct{}    // closed once the queue is sent and empty
}

// nextToken numbers the progress tokens the gateway gives downstreams.
var nextToken atomic.Uint64

// Start registers the call req, to be sent downstream as params, and
// starts sending its notifications on, each within timeout; End must
// follow. level is the least level of log message the caller set for its
// session ("" for none), which the call's own level overrides.
func (r *Relay) Start(ctx context.Context, req *mcp.CallToolRequest, params *mcp.CallToolParams, level mcp.LoggingLevel, timeout time.Duration) *Call {
	c := &Call{
		ctx:      ctx,
		session:  req.Session,
		token:    req.Params.GetProgressToken(),
		level:    level,
		timeout:  timeout,
		queue:    make(chan any, relayQueue),
		answered: make(chan struct{}),
		drained:  make(chan struct{}),
	}
	if level, ok := req.Params.Meta[mcp.MetaKeyLogLevel]; ok {
		// A caller on MCP 2026-07-28 asks for each call's logs in it.
		if params.Meta == nil {
			params.Meta = mcp.Meta{}
		}
		params.Meta[mcp.MetaKeyLogLevel] = level
		if l, ok := level.(string); ok {
			c.level = mcp.LoggingLevel(l)
		}
	}
	if c.token != nil {
		c.ours = "gateway-" + strconv.FormatUint(nextToken.Add(1), 10)
		params.SetProgressToken(c.ours)
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
	go c.forward()
	return c
}

// End unregisters c, once its answer is in, and returns when every
// notification that came before the answer has been sent on.
func (r *Relay) End(c *Call) {
	r.mu.Lock()
	delete(r.calls, c)
	delete(r.byToken, c.ours)
	r.mu.Unlock()
	close(c.answered)
	<-c.drained
}

// forward sends c's notifications on until its answer is in, then the
// ones still queued.
func (c *Call) forward() {
	defer close(c.drained)
	for {
		select {
		case n := <-c.queue:
			c.send(n)
		case <-c.answered:
			for {
				select {
				case n := <-c.queue:
					c.send(n)
				default:
					return
				}
			}
		}
	}
}

// send sends one notification to the caller, within c.timeout.
func (c *Call) send(n any) {
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
	defer cancel()
	switch n := n.(type) {
	case *mcp.ProgressNotificationParams:
		n.ProgressToken = c.token
		_ = c.session.NotifyProgress(ctx, n)
	case *mcp.LoggingMessageParams:
		if c.level != "" && levelRank(n.Level) < levelRank(c.level) {
			return
		}
		// The SDK's Log would drop the message unless the caller set a
		// level: SendLogs sends it as it is.
		_ = c.session.NotifyProgress(context.WithValue(ctx, logToSend{}, n), &mcp.ProgressNotificationParams{})
	}
}

// logToSend is the context key under which a relayed call hands
// SendLogs the log message to send.
type logToSend struct{}

// SendLogs is the gateway's sending middleware that sends a relayed log
// message as it is. The SDK's [mcp.ServerSession.Log] sends nothing to a
// client that set no level, where the downstream sent the message; so the
// relay sends it through the session's sending chain, as the carrier of a
// progress notification that this middleware turns into the log message.
func SendLogs(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		p, ok := ctx.Value(logToSend{}).(*mcp.LoggingMessageParams)
		ss, isServer := req.GetSession().(*mcp.ServerSession)
		if ok && isServer && method == "notifications/progress" {
			return next(ctx, "notifications/message", &mcp.ServerRequest[*mcp.LoggingMessageParams]{Session: ss, Params: p})
		}
		return next(ctx, method, req)
	}
}

// levels are the log levels of MCP, least first.
var levels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// levelRank returns the rank of level among levels; an unknown level
// ranks above them all, so that no message that names one is dropped.
func levelRank(level mcp.LoggingLevel) int {
	if i := slices.Index(levels, level); i >= 0 {
		return i
	}
	return len(levels)
}

// SessionLevels remembers the log level that each client session set with
// logging/setLevel, for as long as the session lives. The zero
// SessionLevels is ready to use.
type SessionLevels struct {
	mu     sync.Mutex
	levels map[weak.Pointer[mcp.ServerSession]]mcp.LoggingLevel
}

// Of returns the level that ss set, or "" if it set none.
func (l *SessionLevels) Of(ss *mcp.ServerSession) mcp.LoggingLevel {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.levels[weak.Make(ss)]
}

// Record is the gateway's receiving middleware that remembers the level
// each session sets.
func (l *SessionLevels) Record(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		set, ok := req.(*mcp.ServerRequest[*mcp.SetLoggingLevelParams])
		if method != "logging/setLevel" || err != nil || !ok || set.Params == nil || set.Session == nil {
			return res, err
		}
		key := weak.Make(set.Session)
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.levels == nil {
			l.levels = map[weak.Pointer[mcp.ServerSession]]mcp.LoggingLevel{}
		}
		if _, known := l.levels[key]; !known {
			runtime.AddCleanup(set.Session, l.forget, key)
		}
		l.levels[key] = set.Params.Level
		return res, err
	}
}

// forget drops the level of a session that is gone.
func (l *SessionLevels) forget(key weak.Pointer[mcp.ServerSession]) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.levels, key)
}

// progress queues p for its call, if that call is in flight.
func (r *Relay) progress(p *mcp.ProgressNotificationParams) {
	token, _ := p.ProgressToken.(string)
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.byToken[token]; c != nil {
		c.put(p)
	}
}

// log queues p for a call in flight, when they all come from one session.
func (r *Relay) log(p *mcp.LoggingMessageParams) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var to *Call
	for c := range r.calls {
		if to != nil && c.session != to.session {
			return
		}
		to = c
	}
	if to != nil {
		to.put(p)
	}
}

// put queues n unless the queue is full. Called with the relay's mu held,
// so that end, which takes it, sees every notification put before it.
func (c *Call) put(n any) {
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
// follows them.
type relayConn struct {
	mcp.Connection
	relay *Relay
}

// Read reads the next message, queuing it first for its call if it is a
// progress notification or a log message.
func (c *relayConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && !req.IsCall() {
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

// AskForLogs asks a downstream that has logs for all of them, so that each
// caller's session can filter them by the level it set. A downstream
// without the logging capability is not asked.
func AskForLogs(ctx context.Context, cs *mcp.ClientSession) error {
	init := cs.InitializeResult()
	if init == nil || init.Capabilities == nil || init.Capabilities.Logging == nil {
		return nil
	}
	return cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"})
}

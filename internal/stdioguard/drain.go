package stdioguard

import (
	"bytes"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/mcpid/mcpid/internal/jsonlit"
)

// DefaultDrainLimit is the drain limit the adapters' stdio transports use
// when their option is left zero: long enough for any tool call within
// its own timeout, short enough that a stuck one does not hold a script.
const DefaultDrainLimit = 30 * time.Second

// SetDrainLimit makes the Guard, at the end of its input, hold back the
// end (io.EOF, or the read error) until the SDK has answered every
// request the Guard passed it, for at most d; past it, the end is
// returned, after a notifications/cancelled for each request left
// unanswered, and those requests are logged at Error with slog's default
// logger. Without it, or with d <= 0, the end is returned
// at once: an SDK that closes its session at the end of its input then
// drops the answers still being made, and `printf '…' | server` loses the
// last. A request is answered when the SDK writes, through [Guard.Write],
// a response with its id; a request the client cancelled
// (notifications/cancelled) is no longer awaited. Call it before the
// first Read.
func (g *Guard) SetDrainLimit(d time.Duration) {
	g.drainLimit = d
	if d > 0 && g.inflight == nil {
		g.inflight = map[string]request{}
		g.answered = make(chan struct{}, 1)
		g.closed = make(chan struct{})
	}
}

// request is a request passed to the SDK and not yet answered.
type request struct {
	id string // the id as the client wrote it
	n  int    // how many requests in flight carry it
}

// track records the request or cancellation that msg, a message the
// Guard passes, carries.
func (g *Guard) track(msg []byte) {
	var id, method, params []byte
	members(msg, func(key, value []byte) {
		switch string(key) {
		case "id":
			id = value
		case "method":
			method = value
		case "params":
			params = value
		}
	})
	switch {
	case method == nil:
		return // a response: nothing to answer
	case id != nil:
		g.await(id, 1)
	case isString(method, "notifications/cancelled") && params != nil && params[0] == '{':
		members(params, func(key, value []byte) {
			if string(key) == "requestId" {
				g.await(value, -1)
			}
		})
	}
}

// answer counts the response that msg, a message the SDK writes, may be.
func (g *Guard) answer(msg []byte) {
	id, ok := responseID(msg)
	if !ok {
		return
	}
	g.await(id, -1)
	select {
	case g.answered <- struct{}{}:
	default:
	}
}

// responseID returns the id of msg when it is a response: an object with
// an id and a result or an error. It reads no further than both, so a
// large result written after its id (as both SDKs write them) is not
// scanned. msg is the SDK's own JSON; should it not be, it is no
// response.
func responseID(msg []byte) (id []byte, ok bool) {
	defer func() {
		if recover() != nil {
			id, ok = nil, false
		}
	}()
	i := jsonlit.SkipSpace(msg, 0)
	if i == len(msg) || msg[i] != '{' {
		return nil, false
	}
	outcome := false
	for i = jsonlit.SkipSpace(msg, i+1); i < len(msg) && msg[i] == '"'; {
		end, _, ok := jsonlit.End(msg, i)
		if !ok {
			return nil, false
		}
		key := msg[i+1 : end-1]
		i = jsonlit.SkipSpace(msg, jsonlit.SkipSpace(msg, end)+1) // past the ':'
		switch string(key) {
		case "method":
			return nil, false
		case "result", "error":
			outcome = true
		}
		if outcome && id != nil {
			return id, true
		}
		if end = skipValue(msg, i); end > len(msg) {
			return nil, false
		}
		if string(key) == "id" {
			id = msg[i:end]
		}
		if outcome && id != nil {
			return id, true
		}
		i = jsonlit.SkipSpace(msg, end)
		if i < len(msg) && msg[i] == ',' {
			i = jsonlit.SkipSpace(msg, i+1)
		}
	}
	return nil, false
}

// await adds n to the requests in flight with the raw JSON id; an id that
// is neither a string nor a number (null) is never answered by id, and
// not awaited.
func (g *Guard) await(id []byte, n int) {
	k, ok := idKey(id)
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.inflight[k]
	if r.n += n; r.n <= 0 {
		delete(g.inflight, k)
		return
	}
	r.id = string(id)
	g.inflight[k] = r
}

// idKey returns the key under which the raw JSON id is awaited: the same
// for every writing of one id, since an SDK answers under the id as it
// decoded it (1.0 may come back as 1, "\u0061" as "a").
func idKey(id []byte) (string, bool) {
	if len(id) == 0 {
		return "", false
	}
	if id[0] == '"' {
		s, ok := jsonlit.Unquote(id)
		if !ok {
			return "", false
		}
		return "s" + s, true
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(id)), 64)
	if err != nil {
		return "", false
	}
	return "n" + strconv.FormatFloat(f, 'g', -1, 64), true
}

// CancelGrace is how long, past the drain limit, the Guard waits for the
// answers of the requests it cancelled before it returns the end: an SDK
// answers a cancelled call as soon as its handler returns, which one that
// honours its context (the search and fetch tools do) does at once. An
// answer written after the end would fail the go-sdk's session with
// "server is closing: EOF" before v1.7.0.
const CancelGrace = time.Second

// drain waits, at the end of the input, until no request is in flight,
// the drain limit passes, or the Guard is closed. Past the limit it
// returns the cancellations of the requests still unanswered, which Read
// passes before the end (and settle waits for their answers).
func (g *Guard) drain() []byte {
	if g.drainLimit <= 0 || g.awaitAnswers(g.drainLimit) {
		return nil
	}
	select {
	case <-g.closed:
		return nil // the SDK closed the session: no one to cancel for
	default:
	}
	ids := g.unanswered()
	if len(ids) == 0 {
		return nil // answered as the limit passed
	}
	slog.Default().Error("mcpid: stdio input ended, and requests were still unanswered at the drain limit; cancelling them and closing without their answers",
		"drain_limit", g.drainLimit, "unanswered_ids", strings.Join(ids, ", "))
	return cancellations(ids)
}

// settle waits, once the SDK has read the cancellations of drain, for
// their answers, within CancelGrace.
func (g *Guard) settle() {
	if !g.settled {
		g.settled = true
		g.awaitAnswers(CancelGrace)
	}
}

// awaitAnswers waits until no request is in flight, for at most d, and
// reports whether none is; a closed Guard waits no longer.
func (g *Guard) awaitAnswers(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for g.inFlight() > 0 {
		select {
		case <-g.answered:
		case <-g.closed:
			return false
		case <-timer.C:
			return g.inFlight() == 0
		}
	}
	return true
}

// cancellations returns a notifications/cancelled line for each of ids,
// the raw JSON ids of requests the SDK never answered. No one reads their
// answers once the input has ended, so the Guard cancels them as the
// client would: an SDK that keeps a session open while a handler runs (the
// go-sdk before v1.7.0 and mcp-go before v1.1.1 keep it open until every
// handler returns) then closes within the drain limit, and a backend that
// honours its context stops working for nobody.
func cancellations(ids []string) []byte {
	var b []byte
	for _, id := range ids {
		b = append(b, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
		b = append(b, id...)
		b = append(b, `,"reason":"the input ended and the drain limit passed"}}`+"\n"...)
	}
	return b
}

// inFlight returns the count of requests in flight.
func (g *Guard) inFlight() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.inflight)
}

// unanswered returns the ids of the requests in flight, as the client
// wrote them.
func (g *Guard) unanswered() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	ids := make([]string, 0, len(g.inflight))
	for _, r := range g.inflight {
		ids = append(ids, r.id)
	}
	return ids
}

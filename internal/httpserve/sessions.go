package httpserve

import (
	"context"
	"iter"
	"sync"
)

// Sessions is the table of the sessions a stateful handler opened, from
// which it picks the session to close when its bound is reached, so that
// a flood of initialize requests costs the sessions it displaces a new
// initialize, not the service its lockout:
//
//   - A session with a request (a POST) in flight is never closed. An
//     open event stream (a GET) does not protect it: a client holds one
//     for as long as it is connected, whether it calls or not.
//   - Of the others, the session closed is the one idle longest (whose
//     last request ended first) of the user holding the most sessions,
//     so that one user's flood closes that user's own sessions; without
//     verified callers every session has the same user, and the session
//     closed is the one idle longest.
//
// Its zero value is an empty table. The handler counts the sessions for
// its bound; the table only records the ones it opened.
type Sessions struct {
	mu    sync.Mutex
	clock uint64 // counts the table's events, for an order of use
	byID  map[string]*session
}

// session is one entry of Sessions.
type session struct {
	user     string
	last     uint64 // the clock of its last request's start or end
	inFlight int    // its requests being served
	ctx      context.Context
	close    context.CancelFunc // ends ctx, and so its streams
}

// Open records the session id, which the request of user in flight opened:
// call End(id) when that request ends.
func (s *Sessions) Open(id, user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID == nil {
		s.byID = map[string]*session{}
	}
	if old := s.byID[id]; old != nil {
		old.close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.clock++
	s.byID[id] = &session{user: user, last: s.clock, inFlight: 1, ctx: ctx, close: cancel}
}

// Owner returns the user whose request opened the session id, and reports
// whether the table holds id.
func (s *Sessions) Owner(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byID[id]
	if e == nil {
		return "", false
	}
	return e.user, true
}

// Begin records a request of the session id in flight, which protects the
// session until End(id), and reports whether the table holds id: a
// session it does not hold was never opened or has been closed.
func (s *Sessions) Begin(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byID[id]
	if e == nil {
		return false
	}
	s.clock++
	e.last = s.clock
	e.inFlight++
	return true
}

// End records the end of a request that Open or Begin recorded.
func (s *Sessions) End(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.byID[id]; e != nil {
		s.clock++
		e.last = s.clock
		e.inFlight--
	}
}

// Stream returns a context, under ctx, of an event stream of the session
// id, which ends when the table closes the session; call stop when the
// stream ends. ok is false when the table does not hold id. A stream does
// not protect its session.
func (s *Sessions) Stream(ctx context.Context, id string) (streamCtx context.Context, stop func(), ok bool) {
	s.mu.Lock()
	e := s.byID[id]
	s.mu.Unlock()
	if e == nil {
		return ctx, func() {}, false
	}
	streamCtx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(e.ctx, cancel)
	return streamCtx, func() { unhook(); cancel() }, true
}

// Forget removes the session id, which the SDK ended, and ends its
// streams.
func (s *Sessions) Forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.byID[id]; e != nil {
		e.close()
		delete(s.byID, id)
	}
}

// Keep removes every session whose id live does not yield (one the SDK
// ended without the handler's knowing), and ends its streams. It reads
// live under the table's lock, so that a session opened meanwhile is not
// taken for one ended.
func (s *Sessions) Keep(live iter.Seq[string]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept := make(map[string]bool, len(s.byID))
	for id := range live {
		kept[id] = true
	}
	for id, e := range s.byID {
		if !kept[id] {
			e.close()
			delete(s.byID, id)
		}
	}
}

// Len returns the number of sessions the table holds.
func (s *Sessions) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byID)
}

// Evict picks the session to close by the rule of [Sessions], removes it
// and ends its streams, and returns its id for the handler to close in
// the SDK; ok is false while every session has a request in flight. Once
// Evict returns, Begin refuses the id, so no request starts on the
// session being closed.
func (s *Sessions) Evict() (id string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := make(map[string]int, 1)
	for _, e := range s.byID {
		held[e.user]++
	}
	var victim *session
	for sid, e := range s.byID {
		if e.inFlight > 0 {
			continue
		}
		if victim == nil || held[e.user] > held[victim.user] ||
			(held[e.user] == held[victim.user] && e.last < victim.last) {
			id, victim = sid, e
		}
	}
	if victim == nil {
		return "", false
	}
	victim.close()
	delete(s.byID, id)
	return id, true
}

// Package health is what the gateway tells a load balancer and an
// operator about itself: /healthz (the process serves), /readyz (a table
// routes calls; its body names the state of the store), the store's state
// as the last naming round or probe found it, and the handler that answers
// these while the gateway is still starting.
package health

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpid/mcpid/toolname"
)

// The states of the store that /readyz names, as the last naming round
// or probe (see [Store.Probes]) found it.
const (
	StoreUnknown = "unknown" // no round has ended yet
	StoreUp      = "up"      // the last round read and, if it had to, wrote the chain; or a probe read it since it was down
	StoreDown    = "down"    // the last round or probe could not reach it, or it failed
	StoreRefused = "refused" // it holds less than this replica held, or records other naming options
)

// ProbeEvery is how often the store is probed for /readyz by default: a
// naming round runs only when something changed, so without a probe an
// outage between rounds would go unseen, and /readyz would say "up"
// throughout. A probe every 5 s, each bounded by 5 s (or -timeout, when
// shorter), has /readyz say "down" within 10 s of an outage.
const ProbeEvery = 5 * time.Second

// Store is the state of the store after the last naming round or probe.
// The zero Store is ready to use, and says [StoreUnknown].
type Store struct{ state atomic.Pointer[string] }

// Round records the outcome of a naming round: a refused table
// ([toolname.ErrRollback], [toolname.ErrChainMismatch]) is refused, any
// other error down, and success up.
func (h *Store) Round(err error) {
	state := StoreUp
	switch {
	case errors.Is(err, toolname.ErrRollback), errors.Is(err, toolname.ErrChainMismatch):
		state = StoreRefused
	case err != nil:
		state = StoreDown
	}
	h.state.Store(&state)
}

// Probe records the outcome of a probe of the store (a Load): an error is
// a store down or refused, as after a round; a success makes a store that
// was down up, and leaves any other state as the last round found it (a
// chain that records other naming options loads well, and stays refused).
func (h *Store) Probe(err error) {
	if err != nil {
		h.Round(err)
		return
	}
	up := StoreUp
	if s := h.state.Load(); s != nil && *s == StoreDown {
		h.state.CompareAndSwap(s, &up)
	}
}

// Probes calls load every every, each call bounded by every or timeout,
// whichever is shorter, and records its outcome (see [Store.Probe]), so
// that /readyz tells an outage between naming rounds, until ctx is done.
func (h *Store) Probes(ctx context.Context, every, timeout time.Duration, load func(context.Context) error) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
		pctx, cancel := context.WithTimeout(ctx, min(every, timeout))
		err := load(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		h.Probe(err)
	}
}

// String returns the state.
func (h *Store) String() string {
	if s := h.state.Load(); s != nil {
		return *s
	}
	return StoreUnknown
}

// Readiness is the body of /readyz.
type Readiness struct {
	// Status is "ready", "starting" (the first tools/list or prompts/list
	// would wait), "no_table" (the store could not be reached since the
	// start, and no -backup holds a table: no name routes) or "draining"
	// (stopping on SIGTERM: still serving while a load balancer notices).
	Status string `json:"status"`
	Store  string `json:"store"` // see Store
	Tools  int    `json:"tools"` // the names served now
}

// Ready returns the body and status code of /readyz for a gateway whose
// store is in state store and that serves tools names: "draining" (503)
// once it stops (a load balancer must send it nothing new, while it still
// serves), else "starting" (503) until every channel of firsts is closed
// (each closed once the first listing it stands for would answer at
// once), then "no_table" (503) while held is false (no table routes), and
// "ready" (200) otherwise.
func Ready(draining bool, firsts []<-chan struct{}, held bool, store string, tools int) (Readiness, int) {
	r := Readiness{Status: "ready", Store: store, Tools: tools}
	if draining {
		r.Status = "draining"
		return r, http.StatusServiceUnavailable
	}
	for _, first := range firsts {
		select {
		case <-first:
		default:
			r.Status = "starting"
			return r, http.StatusServiceUnavailable
		}
	}
	if !held {
		r.Status = "no_table"
		return r, http.StatusServiceUnavailable
	}
	return r, http.StatusOK
}

// Handler returns h with the endpoints a load balancer checks:
//
//   - /healthz answers 200 while the process serves HTTP;
//   - /readyz answers what ready returns (see [Ready]), with its
//     JSON body: {"status":"ready","store":"down","tools":12}.
func Handler(h http.Handler, ready func() (Readiness, int)) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		r, code := ready()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(r)
	})
	return mux
}

// Starting is the -http listener's handler from the moment it listens,
// before the gateway has checked its store and started: /healthz answers
// 200 at once (the process serves), /readyz answers 503 "starting", and
// every other request waits until the gateway is started (its start is
// bounded by -timeout), then goes to the gateway's handler; if the start
// fails, it answers 503. Make one with [NewStarting].
type Starting struct {
	ready chan struct{} // closed once h is set, or the start failed
	once  sync.Once
	h     http.Handler // nil when the start failed; read after ready
}

// NewStarting returns a Starting that holds every request but the health
// checks until [Starting.Serve] or [Starting.Fail].
func NewStarting() *Starting { return &Starting{ready: make(chan struct{})} }

// Serve lets every request through to h from now on.
func (s *Starting) Serve(h http.Handler) {
	s.once.Do(func() {
		s.h = h
		close(s.ready)
	})
}

// Fail answers every request waiting, and every later one, 503; after
// Serve, it does nothing.
func (s *Starting) Fail() { s.Serve(nil) }

// ServeHTTP answers the health checks until the gateway is started, and
// holds every other request until then.
func (s *Starting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.ready:
	default:
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/healthz":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte("ok\n"))
			return
		case r.Method == http.MethodGet && r.URL.Path == "/readyz":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(Readiness{Status: "starting", Store: StoreUnknown})
			return
		}
		select {
		case <-s.ready:
		case <-r.Context().Done():
			return
		}
	}
	if s.h == nil {
		http.Error(w, "the gateway did not start", http.StatusServiceUnavailable)
		return
	}
	s.h.ServeHTTP(w, r)
}

package gateway

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
// or probe (see probeStore) found it.
const (
	storeUnknown = "unknown" // no round has ended yet
	storeUp      = "up"      // the last round read and, if it had to, wrote the chain; or a probe read it since it was down
	storeDown    = "down"    // the last round or probe could not reach it, or it failed
	storeRefused = "refused" // it holds less than this replica held, or records other naming options
)

// storeProbeEvery is how often the store is probed for /readyz: a naming
// round runs only when something changed, so without a probe an outage
// between rounds would go unseen, and /readyz would say "up" throughout.
// A probe every 5 s, each bounded by 5 s (or -timeout, when shorter), has
// /readyz say "down" within 10 s of an outage.
const storeProbeEvery = 5 * time.Second

// storeHealth is the state of the store after the last naming round or
// probe.
type storeHealth struct{ state atomic.Pointer[string] }

// round records the outcome of a naming round.
func (h *storeHealth) round(err error) {
	state := storeUp
	switch {
	case errors.Is(err, toolname.ErrRollback), errors.Is(err, toolname.ErrChainMismatch):
		state = storeRefused
	case err != nil:
		state = storeDown
	}
	h.state.Store(&state)
}

// probe records the outcome of a probe of the store (a Load): an error is
// a store down or refused, as after a round; a success makes a store that
// was down up, and leaves any other state as the last round found it (a
// chain that records other naming options loads well, and stays refused).
func (h *storeHealth) probe(err error) {
	if err != nil {
		h.round(err)
		return
	}
	up := storeUp
	if s := h.state.Load(); s != nil && *s == storeDown {
		h.state.CompareAndSwap(s, &up)
	}
}

// probeStore probes the tools' store every probeEvery, each probe
// bounded by probeEvery or -timeout, whichever is shorter, so that
// /readyz tells an outage between naming rounds (see storeProbeEvery).
func (g *gateway) probeStore() {
	defer g.wg.Done()
	tick := time.NewTicker(g.cfg.probeEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-g.ctx.Done():
			return
		}
		ctx, cancel := context.WithTimeout(g.ctx, min(g.cfg.probeEvery, g.cfg.timeout))
		_, _, err := g.cfg.store.Load(ctx)
		cancel()
		if g.ctx.Err() != nil {
			return
		}
		g.health.probe(err)
	}
}

// String returns the state.
func (h *storeHealth) String() string {
	if s := h.state.Load(); s != nil {
		return *s
	}
	return storeUnknown
}

// readiness is the body of /readyz.
type readiness struct {
	// Status is "ready", "starting" (the first tools/list or prompts/list
	// would wait),
	// "no_table" (the store could not be reached since the start, and no
	// -backup holds a table: no name routes) or "draining" (stopping on
	// SIGTERM: still serving, for -drain, while the load balancer notices).
	Status string `json:"status"`
	Store  string `json:"store"` // see storeHealth
	Tools  int    `json:"tools"` // the names served now
}

// withHealth returns h with the endpoints a load balancer checks:
//
//   - /healthz answers 200 while the process serves HTTP;
//   - /readyz answers 200 once the first tools/list and prompts/list are
//     answered at once (every downstream listed and the first naming round
//     of both chains is done, or -start-timeout passed) and while a table routes calls, whether the
//     store is up, down or refused (the held table keeps routing); 503
//     before, when no table is held, and once the gateway drains (see
//     drain.go). Its JSON body names the state:
//     {"status":"ready","store":"down","tools":12}.
func (g *gateway) withHealth(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		r, code := g.readiness()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(r)
	})
	return mux
}

// readiness returns the body and status code of /readyz.
func (g *gateway) readiness() (readiness, int) {
	t := g.table.Load()
	r := readiness{Status: "ready", Store: g.health.String(), Tools: len(t.tools)}
	if g.draining.Load() {
		r.Status = "draining"
		return r, http.StatusServiceUnavailable
	}
	for _, first := range []chan struct{}{g.ready, g.relayed.prompts.ready} {
		select {
		case <-first:
		default:
			r.Status = "starting"
			return r, http.StatusServiceUnavailable
		}
	}
	if t.names == nil {
		r.Status = "no_table"
		return r, http.StatusServiceUnavailable
	}
	return r, http.StatusOK
}

// startingHTTP is the -http listener's handler from the moment it listens,
// before the gateway has checked its store and started: /healthz answers
// 200 at once (the process serves), /readyz answers 503 "starting", and
// every other request waits until the gateway is started (its start is
// bounded by -timeout), then goes to the gateway's handler; if the start
// fails, it answers 503.
type startingHTTP struct {
	ready chan struct{} // closed once h is set, or the start failed
	once  sync.Once
	h     http.Handler // nil when the start failed; read after ready
}

func newStartingHTTP() *startingHTTP { return &startingHTTP{ready: make(chan struct{})} }

// serve lets every request through to h from now on.
func (s *startingHTTP) serve(h http.Handler) {
	s.once.Do(func() {
		s.h = h
		close(s.ready)
	})
}

// fail answers every request waiting, and every later one, 503; after
// serve, it does nothing.
func (s *startingHTTP) fail() { s.serve(nil) }

func (s *startingHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
			_ = json.NewEncoder(w).Encode(readiness{Status: "starting", Store: storeUnknown})
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

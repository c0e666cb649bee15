package gateway

import (
	"context"
	"net/http"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/health"
)

// probeStore probes the tools' store every probeEvery, each probe
// bounded by probeEvery or -timeout, whichever is shorter, so that
// /readyz tells an outage between naming rounds (see health.ProbeEvery).
func (g *gateway) probeStore() {
	defer g.wg.Done()
	g.health.Probes(g.ctx, g.cfg.probeEvery, g.cfg.timeout, func(ctx context.Context) error {
		_, _, err := g.cfg.store.Load(ctx)
		return err
	})
}

// withHealth returns h with the endpoints a load balancer checks (see
// health.Handler): /readyz answers 200 once the first tools/list and
// prompts/list are answered at once (every downstream listed and the
// first naming round of both chains is done, or -start-timeout passed)
// and while a table routes calls, whether the store is up, down or
// refused (the held table keeps routing); 503 before, or when no table
// is held, and once the gateway drains (see drain.go).
func (g *gateway) withHealth(h http.Handler) http.Handler {
	return health.Handler(h, g.readiness)
}

// readiness returns the body and status code of /readyz.
func (g *gateway) readiness() (health.Readiness, int) {
	t := g.table.Load()
	return health.Ready(g.draining.Load(), []<-chan struct{}{g.ready, g.promptsReady}, t.names != nil, g.health.String(), len(t.tools))
}

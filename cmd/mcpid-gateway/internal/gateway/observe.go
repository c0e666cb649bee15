package gateway

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/health"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/metrics"
	"github.com/mcpid/mcpid/searchfetch"
)

// observe records one answered tools/call in the gateway's metrics and
// traces (see metrics.Record): the server it went to ("" when it routed to
// none), the tool, the name called, and its outcome, one of the closed set
// of metrics.Outcome, never a downstream's own code.
func (g *gateway) observe(st servedTool, name, outcome string, d time.Duration, err error) {
	if g.cfg.metrics == nil {
		return
	}
	g.cfg.metrics.Record(context.Background(), metrics.Call{
		Server: st.key.Server, Tool: st.key.Tool, Name: clip(name, maxRefusal),
		Outcome: callOutcome(outcome, err), Start: time.Now().Add(-d), Duration: d,
	})
}

// observeUnrouted records a tools/call whose name routes to no tool.
func (g *gateway) observeUnrouted(name string, began time.Time) {
	g.observe(servedTool{}, name, string(codeUnknownTool), time.Since(began), nil)
}

// callOutcome maps the outcome that logCall logs (ok, tool_error, or the
// code of the gateway's envelope), with the call's failure, to the metrics'
// closed set: a resource_unavailable whose failure is a deadline is a
// timeout, a name that routes nowhere an unknown_tool, and every other
// failure (a refusal, arguments that are not an object) an error.
func callOutcome(outcome string, err error) metrics.Outcome {
	switch mcpid.Code(outcome) {
	case outcomeOK:
		return metrics.OK
	case outcomeToolError:
		return metrics.ToolError
	case codeUnknownTool, codeAmbiguousTool, mcpid.CodeNotFound:
		return metrics.UnknownTool
	case mcpid.CodeResourceUnavailable:
		if errors.Is(err, context.DeadlineExceeded) {
			return metrics.Timeout
		}
		return metrics.Unavailable
	case searchfetch.CodeInvalidArguments, codeCallRefused:
		return metrics.Error
	}
	return metrics.Error
}

// withMetrics returns h with GET /metrics beside it, unless there are no
// metrics or -metrics serves them on a listener of their own. handler
// puts the inbound authentication around what it returns: /metrics names
// the configured servers and counts their calls.
func (g *gateway) withMetrics(h http.Handler) http.Handler {
	if g.cfg.metrics == nil || g.cfg.metricsApart {
		return h
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.Handle("GET /metrics", g.cfg.metrics.Handler())
	return mux
}

// metricsState is the gateway as its metrics read it at each scrape (see
// metrics.State).
type metricsState struct{ g *gateway }

// DownstreamUp reports whether the downstream named server has a session:
// from its connection until the session ends.
func (s metricsState) DownstreamUp(server string) bool {
	s.g.mu.Lock()
	d := s.g.downstreams[server]
	s.g.mu.Unlock()
	return d != nil && d.Session() != nil
}

// StoreUp reports whether /readyz names the store up.
func (s metricsState) StoreUp() bool { return s.g.health.String() == health.StoreUp }

// Generation returns the generation of the table the chain serves from.
func (s metricsState) Generation(chain string) (uint64, bool) {
	var t = s.g.table.Load().names
	if chain == metrics.ChainPrompts {
		t = s.g.kinds.PromptNames()
	}
	if t == nil {
		return 0, false
	}
	_, gen := t.Chain()
	return gen, true
}

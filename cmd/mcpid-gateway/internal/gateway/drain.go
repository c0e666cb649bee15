package gateway

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/gosdk"
)

// How a gateway stops on SIGTERM or an interrupt (the first one: a second
// exits at once, see serve.Main), so that a rolling restart of replicas
// behind a load balancer loses no call:
//
//   - with -http, /readyz answers 503 "draining" at once, while every
//     request that reaches the replica is still served, /healthz and
//     /mcp alike, for -drain (the time the load balancer's checks take
//     to notice and send no more); then the listener closes, the event
//     streams end (a GET stream, a subscriptions/listen), the calls in
//     flight have -timeout to be answered (each call is bounded by
//     -timeout anyway), the downstreams are closed, and Run returns nil;
//   - with -stdio, the gateway reads no more requests, as if its client
//     had closed its stdin, the calls in flight are answered within
//     -timeout, and Run returns nil. There is no -drain wait: a stdio
//     gateway has one client, which no load balancer routes elsewhere.

// defaultDrain is -drain's default: a load balancer that checks /readyz
// every second and takes two failures to mark a replica down (haproxy's
// "inter 1s fall 2", each check within 1 s) notices within 3 s.
const defaultDrain = 5 * time.Second

// drain turns /readyz to 503 and waits for wait, serving as before,
// unless the listener ends first (ended).
func (g *gateway) drain(wait time.Duration, ended <-chan struct{}) {
	g.draining.Store(true)
	g.cfg.logger.Info("gateway: draining: /readyz answers 503; serving on until the listener closes", "drain", wait)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ended:
	}
}

// endStreams returns h with the context of every GET request (an event
// stream of a session, which lasts as long as its client keeps it) ended
// once streams is done, so that the shutdown does not wait on it.
func endStreams(h http.Handler, streams context.Context) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(streams, cancel)
		defer stop()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// endListens is the receiving middleware that ends every
// subscriptions/listen (a POST answered by an event stream that lasts
// until its client cancels it) once streams is done, as endStreams ends
// a GET stream.
func endListens(streams context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "subscriptions/listen" {
				return next(ctx, method, req)
			}
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			stop := context.AfterFunc(streams, cancel)
			defer stop()
			return next(ctx, method, req)
		}
	}
}

// serveStdio serves srv's one session over in and out until its client
// ends it or ctx is done. The session's requests do not see ctx end:
// then its input ends, as if the client had closed it, and the
// transport answers the requests it read before it closes, within
// timeout (a call is bounded by -timeout anyway), as at the end of any
// input.
func serveStdio(ctx context.Context, srv *mcp.Server, in io.ReadCloser, out io.WriteCloser, timeout time.Duration) error {
	t := gosdk.NewStdioTransport(endInput(ctx, in), out)
	t.DrainLimit = timeout
	return srv.Run(context.WithoutCancel(ctx), t)
}

// endInput returns in, which ends (io.EOF) once ctx is done.
func endInput(ctx context.Context, in io.ReadCloser) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, in)
		pw.CloseWithError(err)
	}()
	context.AfterFunc(ctx, func() { _ = pw.Close() })
	return pr
}

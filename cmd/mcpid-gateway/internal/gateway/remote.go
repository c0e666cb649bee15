package gateway

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
)

// This file is how the gateway reaches a remote downstream: an MCP server
// at an http or https URL, over the go-sdk's streamable HTTP client
// transport, through an HTTP client of the downstream's own. That client
// adds the downstream's -header fields to every request, refuses
// redirects, and bounds what it reads of each response.

// remoteURL returns the URL of a -server whose command is an http or
// https URL with a host, and false for any other command (a stdio one).
func remoteURL(command string) (*url.URL, bool) {
	command = strings.TrimSpace(command)
	if !strings.HasPrefix(command, "http://") && !strings.HasPrefix(command, "https://") {
		return nil, false
	}
	u, err := url.Parse(command)
	if err != nil || u.Host == "" {
		return nil, false
	}
	return u, true
}

// reservedHeaders are the fields the transport itself sets on each
// request: a -header may not set them, since a wrong one breaks the
// session (Mcp-Session-Id, Mcp-Protocol-Version) or the request's framing.
var reservedHeaders = map[string]bool{
	"Accept": true, "Connection": true, "Content-Length": true, "Content-Type": true,
	"Host": true, "Last-Event-Id": true, "Mcp-Protocol-Version": true, "Mcp-Session-Id": true,
	"Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
}

// remoteLink is the transport of a downstream reached over HTTP: the
// SDK's, with what the gateway keeps of the downstream's HTTP side.
type remoteLink struct {
	*mcp.StreamableClientTransport
	http *remote
	// relist is how often the downstream is listed again when its
	// server keeps no session, and so cannot tell of changes; 0 never.
	relist time.Duration
}

// newRemoteLink returns the transport of the HTTP downstream server at
// endpoint (see newRemoteTransport).
func newRemoteLink(server, endpoint string, header http.Header, timeout time.Duration, maxBody int64, relist time.Duration) *remoteLink {
	t, r := newRemoteTransport(server, endpoint, header, timeout, maxBody)
	return &remoteLink{StreamableClientTransport: t, http: r, relist: relist}
}

// remote is what the gateway keeps of one remote downstream's HTTP side.
type remote struct {
	server  string
	header  http.Header
	maxBody int64
	next    http.RoundTripper
	// version is the protocol version its session negotiated, sent in
	// the Mcp-Protocol-Version header of each request that lacks it.
	version atomic.Pointer[string]
}

// newRemoteTransport returns the transport that reaches the streamable
// HTTP server at endpoint for the downstream server: every request carries
// header; connecting, a TLS handshake and waiting for a response's
// headers are each bounded by timeout (a call's own timeout bounds the
// rest); no redirect is followed; a response body other than an event
// stream is refused beyond maxBody bytes, and so is each event of a
// stream, whose whole length is not bounded (it lasts as long as the
// session).
func newRemoteTransport(server, endpoint string, header http.Header, timeout time.Duration, maxBody int64) (*mcp.StreamableClientTransport, *remote) {
	r := &remote{server: server, header: header, maxBody: maxBody, next: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
	}}
	return &mcp.StreamableClientTransport{
		Endpoint: endpoint,
		HTTPClient: &http.Client{
			Transport: r,
			// r refuses a redirect before the client sees it, so that the
			// error names no Location (net/http's own error would, query
			// and all); this stops one all the same.
			CheckRedirect: func(*http.Request, []*http.Request) error { return r.redirectErr(0) },
		},
		MaxEventSize: int(maxBody),
		// A stream that breaks ends the session at once, which the
		// gateway opens again with its own restart backoff, as it
		// restarts a stdio server: the SDK's own retries would keep a
		// dead server's session for up to half a minute, and wait longer
		// than -timeout between tries.
		MaxRetries: -1,
	}, r
}

// connected records the protocol version of a new session.
func (r *remote) connected(cs *mcp.ClientSession) {
	if init := cs.InitializeResult(); init != nil {
		v := init.ProtocolVersion
		r.version.Store(&v)
	}
}

// errTransportRejected matches, by its code (see [jsonrpc.Error.Is]), the
// error that the SDK's HTTP transport wraps around a request it could not
// deliver (the server cannot be reached, a redirect, a body too large, a
// 5xx): a JSON-RPC error that no downstream sent.
var errTransportRejected = &jsonrpc.Error{Code: -32005}

// undelivered reports whether err is the transport's, not the
// downstream's: the request was not delivered, or its answer not read, so
// the downstream is unavailable rather than refusing.
func undelivered(err error) bool { return errors.Is(err, errTransportRejected) }

// errRedirect is the error of a downstream that answered with a redirect.
var errRedirect = errors.New("redirects are refused: give -server the URL the server answers at")

// errBodyTooLarge is the error of a downstream response larger than the
// gateway reads.
var errBodyTooLarge = errors.New("the response body is too large")

func (r *remote) redirectErr(status int) error {
	return fmt.Errorf("server %q answered %d with a redirect: %w", r.server, status, errRedirect)
}

// RoundTrip sends req with the downstream's header fields, and refuses a
// redirect and a body beyond the bound (see newRemoteTransport). A body it
// bounds is read whole here, before the SDK reads it: a body over the
// bound is refused without being read beyond it.
func (r *remote) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range r.header {
		req.Header[k] = v
	}
	if v := r.version.Load(); v != nil && req.Header.Get("Mcp-Protocol-Version") == "" {
		req.Header.Set("Mcp-Protocol-Version", *v)
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		_ = resp.Body.Close()
		return nil, r.redirectErr(resp.StatusCode)
	}
	mediaType, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";")
	if resp.StatusCode/100 == 2 && strings.EqualFold(strings.TrimSpace(mediaType), "text/event-stream") {
		return resp, nil // the SDK bounds each event (MaxEventSize)
	}
	tooLarge := fmt.Errorf("server %q: %w (more than %d bytes)", r.server, errBodyTooLarge, r.maxBody)
	if resp.ContentLength > r.maxBody {
		_ = resp.Body.Close()
		return nil, tooLarge
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, r.maxBody+1))
	_ = resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("server %q: reading the response: %w", r.server, err)
	}
	if int64(len(body)) > r.maxBody {
		return nil, tooLarge
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// relistTicker returns a channel that ticks every -relist for an HTTP
// downstream that keeps no session (its server gave no Mcp-Session-Id):
// such a server cannot send list_changed, so its lists are read again on
// that interval instead. For any other, and with -relist 0, the channel is
// nil, and never ticks.
func relistTicker(d *downstream.Child, cs *mcp.ClientSession) (<-chan time.Time, func()) {
	r := remoteOf(d)
	if r == nil || r.relist <= 0 || cs.ID() != "" {
		return nil, func() {}
	}
	t := time.NewTicker(r.relist)
	return t.C, t.Stop
}

// watch opens, for an HTTP downstream that keeps a session, a second
// session that only listens: the one that carries the calls, cs, reads
// its messages through the relay (see downstream.Relay), and the SDK opens
// the stream on which a server sends what it sends outside a call (its
// list changes, its resource updates) only for a connection it made
// itself. The list changes that arrive there start the same relists as on
// a stdio downstream; the callers' resource subscriptions are made on it
// (see downstream.Child.OnSubscriptions), so that their updates arrive
// and are relayed. It
// returns a channel closed when the listening session ends (the
// downstream session is then started again, both together), and the
// function that closes it; one that cannot be opened has ended already.
// For any other downstream, the channel is nil.
func (g *gateway) watch(d *downstream.Child, cs *mcp.ClientSession) (<-chan struct{}, func()) {
	if !d.ListensApart(cs) {
		return nil, func() {}
	}
	signal := func(ch chan struct{}) {
		select {
		case ch <- struct{}{}:
		default: // one is pending already
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpid-gateway", Version: "v0.1.0"}, &mcp.ClientOptions{
		Logger:                     g.cfg.logger,
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { signal(d.Changed) },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { signal(d.KindsChanged) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { signal(d.KindsChanged) },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			g.kinds.ResourceUpdated(d, req.Params)
		},
	})
	client.AddReceivingMiddleware(g.recovered)
	ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
	defer cancel()
	ws, err := connectLink(ctx, client, d.Transport)
	ended := make(chan struct{})
	if err != nil {
		g.cfg.logger.Warn("gateway: opening a session for a downstream's list changes", "server", d.Name, "err", err)
		close(ended)
		return ended, func() {}
	}
	d.SetListener(ws)
	go func() {
		_ = ws.Wait()
		// An ended session takes no more subscriptions: until the
		// session loop sees ended, new ones are recorded for the next.
		d.DropListener(ws)
		close(ended)
	}()
	g.kinds.Resubscribe(d, ws)
	return ended, func() {
		d.DropListener(ws)
		_ = ws.Close()
	}
}

// remoteOf returns the HTTP side of d, or nil when d is not reached over
// HTTP (a stdio downstream).
func remoteOf(d *downstream.Child) *remoteLink {
	r, _ := d.Transport.(*remoteLink)
	return r
}

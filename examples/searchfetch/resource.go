package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpid/mcpid"
)

// The resource server's HTTP API, as this example assumes it:
//
//	GET /v1/search?q=...                                  200 rsSearchResult
//	GET /v1/streams/{stream}/records/{record_id}          200 rsDocument
//	    [?connection_id=...]
//	GET /v1/records?connection_id=...&id=...              200 rsDocument
//
// A record read answers 404 when there is no such record, and an unscoped
// one (no connection_id) answers 409 with an rsConflict body when the record
// exists in more than one connection the caller can read.
//
// The first record read serves plain handles, stream:record, whose two
// segments the handle grammar makes safe to escape into a path. The second
// serves opaque handles, connection/:base: their base id may be a URL or a
// key with '/' or "..", so it travels only as a query value, and the
// resource server looks it up within the connection, never as a path.

// rsHit is one search hit as the resource server returns it. ID is the
// hit's id within its connection (a legacy stream:record, a URL, a key);
// the connection travels beside it.
// Its fields are mcpid.Hit's, in the same order, so it converts to one.
type rsHit struct {
	ID           string `json:"id"`
	ConnectionID string `json:"connection_id"`
	ConnectorKey string `json:"connector_key"`
	Stream       string `json:"stream"`
	DisplayName  string `json:"display_name"`
	Title        string `json:"title"`
	Snippet      string `json:"snippet"`
	URL          string `json:"url"`
}

// rsSearchResult is the body of a search answer.
type rsSearchResult struct {
	Hits    []rsHit `json:"hits"`
	Total   int     `json:"total"`
	HasMore bool    `json:"has_more"`
}

// rsDocument is one record as the resource server returns it. ID is the
// record's id within its connection, as its search hit carries it.
type rsDocument struct {
	ConnectionID string            `json:"connection_id"`
	ID           string            `json:"id"`
	Stream       string            `json:"stream"`
	Title        string            `json:"title"`
	Text         string            `json:"text"`
	URL          string            `json:"url"`
	Metadata     map[string]string `json:"metadata,omitempty"`
}

// rsConflict is the body of a 409 answer.
type rsConflict struct {
	Code                 string   `json:"code"`
	AvailableConnections []string `json:"available_connections"`
}

// maxBody bounds how much of a resource-server answer is read.
const maxBody = 1 << 20

// maxIdlePerHost is how many idle connections the resource client keeps
// open to the resource server. net/http's default, 2, is far below the
// number of tool calls a loaded server has in flight: every connection
// beyond it is closed after its answer and dialled again for the next
// call, which fills the machine with sockets in TIME_WAIT until it runs
// out of ephemeral ports. 64 covers the concurrency of a busy server; more
// calls than that still work, on extra connections.
const maxIdlePerHost = 64

// resourceClient calls the resource server. Every request is bounded by
// the http.Client's Timeout, so a stalled server cannot hang a tool call.
type resourceClient struct {
	base string // scheme://host[/prefix], without a trailing '/'
	http *http.Client
}

// newResourceClient returns a client for the resource server at base, whose
// requests each give up after timeout.
func newResourceClient(base string, timeout time.Duration) (*resourceClient, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("resource server URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("resource server URL %q: want http://host[:port][/prefix]", base)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("resource server URL %q: must not have a query or fragment", base)
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("resource server timeout %v: must be positive", timeout)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = maxIdlePerHost
	tr.MaxIdleConns = max(tr.MaxIdleConns, maxIdlePerHost)
	return &resourceClient{
		base: strings.TrimRight(base, "/"),
		http: &http.Client{Timeout: timeout, Transport: tr},
	}, nil
}

// search asks the resource server for the hits matching query.
func (c *resourceClient) search(ctx context.Context, query string) (rsSearchResult, error) {
	var res rsSearchResult
	status, body, err := c.get(ctx, "/v1/search", url.Values{"q": {query}})
	if err != nil {
		return res, err
	}
	switch {
	case status >= 500:
		return res, statusError(status)
	case status != http.StatusOK:
		// Search has no record to miss: any other status is unusable.
		return res, invalidResponse("the resource server answered with the unexpected status " + strconv.Itoa(status))
	}
	if err := decode(body, &res); err != nil {
		return rsSearchResult{}, err
	}
	return res, nil
}

// record reads the record that req names. req must come from a successful
// [mcpid.ResolveFetch]. A plain handle is read at its
// [mcpid.FetchRequest.RecordPath], with the connection, when there is one,
// as the connection_id query; an opaque handle, which always has a
// connection, is looked up by its base id within that connection.
//
// A 409 ambiguous_connection answer becomes [mcpid.AmbiguousConnection];
// every failure is an [*mcpid.Error] with a resource-server code.
func (c *resourceClient) record(ctx context.Context, req mcpid.FetchRequest) (rsDocument, error) {
	path, query := req.RecordPath(), req.Query()
	if req.Handle.IsOpaque() {
		path = "/v1/records"
		query.Set("id", req.Handle.BaseID())
	}
	if path == "" || req.Handle.IsOpaque() && req.ConnectionID == "" {
		// Unreachable with a resolved request; fail closed all the same.
		return rsDocument{}, mcpid.NewError(mcpid.CodeInvalidID, "the request names no record", "pass the id exactly as search returned it")
	}
	status, body, err := c.get(ctx, path, query)
	if err != nil {
		return rsDocument{}, err
	}
	switch status {
	case http.StatusOK:
	case http.StatusConflict:
		return rsDocument{}, conflictError(body)
	default:
		return rsDocument{}, statusError(status)
	}
	var doc rsDocument
	if err := decode(body, &doc); err != nil {
		return rsDocument{}, err
	}
	// The resource server is the authority on scope, but a document from a
	// connection or record other than the one asked for would put the wrong
	// data under the id the model passed. Ids are compared byte for byte.
	if req.ConnectionID != "" && doc.ConnectionID != req.ConnectionID || doc.ID != req.Handle.BaseID() {
		return rsDocument{}, invalidResponse("the resource server answered with another record than the one asked for")
	}
	return doc, nil
}

// conflictError turns the body of a 409 answer into the
// [mcpid.AmbiguousConnection] error it stands for, or an
// invalid_resource_response error when it is not one.
func conflictError(body []byte) error {
	var conflict rsConflict
	if err := decode(body, &conflict); err != nil {
		return err
	}
	if conflict.Code != string(mcpid.CodeAmbiguousConnection) || len(conflict.AvailableConnections) == 0 {
		return invalidResponse("the resource server answered 409 without listing the connections to choose from")
	}
	return mcpid.AmbiguousConnection(conflict.AvailableConnections)
}

// get sends GET base+path?query and returns the status and at most maxBody
// bytes of the body. A transport failure or a timeout is a
// resource_unavailable error.
func (c *resourceClient) get(ctx context.Context, path string, query url.Values) (int, []byte, error) {
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return 0, nil, invalidResponse("the request to the resource server could not be built")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		if isTimeout(err) {
			return 0, nil, unavailable("the resource server did not answer within " + c.http.Timeout.String())
		}
		return 0, nil, unavailable("the resource server could not be reached")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		if isTimeout(err) {
			return 0, nil, unavailable("the resource server did not finish its answer within " + c.http.Timeout.String())
		}
		return 0, nil, unavailable("the resource server's answer was cut off")
	}
	if len(body) > maxBody {
		return 0, nil, invalidResponse("the resource server's answer is larger than " + strconv.Itoa(maxBody) + " bytes")
	}
	return resp.StatusCode, body, nil
}

// isTimeout reports whether err is a deadline or a client timeout.
func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &te) && te.Timeout()
}

// decode unmarshals a JSON body into v, or returns an
// invalid_resource_response error. The decoder's own message stays out of
// the error: it is about this server's types, not about the tool call.
func decode(body []byte, v any) error {
	if json.Unmarshal(body, v) != nil {
		return invalidResponse("the resource server's answer is not the expected JSON")
	}
	return nil
}

// statusError maps the status of a record read other than 200 and 409 to
// an error.
func statusError(status int) error {
	switch {
	case status == http.StatusNotFound:
		return mcpid.NewError(mcpid.CodeNotFound, "the resource server has no such record",
			"pass the id exactly as search returned it, or search again")
	case status >= 500:
		return unavailable("the resource server failed with status " + strconv.Itoa(status))
	}
	return invalidResponse("the resource server answered with the unexpected status " + strconv.Itoa(status))
}

// unavailable returns a resource_unavailable error: the same call may work
// later.
func unavailable(message string) error {
	return mcpid.NewError(mcpid.CodeResourceUnavailable, message, "retry later; the arguments were fine")
}

// invalidResponse returns an invalid_resource_response error: retrying is
// unlikely to help.
func invalidResponse(message string) error {
	return mcpid.NewError(mcpid.CodeInvalidResourceResponse, message, "report this to the server operator")
}

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
//	GET /v1/search?q=...                             200 {"hits":[rsHit...],"total":n}
//	GET /v1/streams/{stream}/records/{record_id}     200 rsDocument
//	    [?connection_id=...]                         404 not found
//	                                                 409 {"code":"ambiguous_connection",
//	                                                      "available_connections":[...]}
//
// Unscoped record reads (no connection_id) are answered with 409 when the
// record exists in more than one connection the caller can read.

// rsHit is one search hit as the resource server returns it. ID is the
// legacy stream:record id; the connection travels beside it.
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

// rsDocument is one record as the resource server returns it.
type rsDocument struct {
	ConnectionID string            `json:"connection_id"`
	Stream       string            `json:"stream"`
	RecordID     string            `json:"record_id"`
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
	return &resourceClient{
		base: strings.TrimRight(base, "/"),
		http: &http.Client{Timeout: timeout},
	}, nil
}

// search asks the resource server for the hits matching query.
func (c *resourceClient) search(ctx context.Context, query string) (rsSearchResult, error) {
	var res rsSearchResult
	status, body, err := c.get(ctx, "/v1/search", url.Values{"q": {query}})
	if err != nil {
		return res, err
	}
	if status != http.StatusOK {
		return res, statusError(status, body)
	}
	if err := decode(status, body, &res); err != nil {
		return res, err
	}
	return res, nil
}

// record reads the record that req names. req must come from a successful
// [mcpid.ResolveFetch]: its path is escaped segment by segment, and the
// connection, when there is one, travels as the connection_id query.
//
// A 409 ambiguous_connection answer becomes the [*mcpid.Error] that
// [mcpid.AmbiguousConnection] builds; every other failure is a
// [*resourceError].
func (c *resourceClient) record(ctx context.Context, req mcpid.FetchRequest) (rsDocument, error) {
	var doc rsDocument
	path := req.RecordPath()
	if path == "" {
		// Unreachable with a resolved request; fail closed all the same.
		return doc, &resourceError{Code: codeInvalidResponse, Detail: "no record path to read"}
	}
	status, body, err := c.get(ctx, path, req.Query())
	if err != nil {
		return doc, err
	}
	switch status {
	case http.StatusOK:
	case http.StatusConflict:
		var conflict rsConflict
		if err := decode(status, body, &conflict); err != nil {
			return doc, err
		}
		if conflict.Code != string(mcpid.CodeAmbiguousConnection) || len(conflict.AvailableConnections) == 0 {
			return doc, &resourceError{
				Code:   codeInvalidResponse,
				Status: status,
				Detail: "409 without an ambiguous_connection body listing connections",
			}
		}
		return doc, mcpid.AmbiguousConnection(conflict.AvailableConnections)
	default:
		return doc, statusError(status, body)
	}
	if err := decode(status, body, &doc); err != nil {
		return doc, err
	}
	// The resource server is the authority on scope, but a document from a
	// connection, stream or record other than the one asked for would put
	// the wrong data under the id the model passed. Keys are compared byte
	// for byte, like the ids that carry them.
	var mismatch string
	switch {
	case req.ConnectionID != "" && doc.ConnectionID != req.ConnectionID:
		mismatch = fmt.Sprintf("asked for connection %q, got a document from %q", req.ConnectionID, doc.ConnectionID)
	case doc.Stream != req.Handle.Stream():
		mismatch = fmt.Sprintf("asked for stream %q, got a document from %q", req.Handle.Stream(), doc.Stream)
	case doc.RecordID != req.Handle.RecordID():
		mismatch = fmt.Sprintf("asked for record %q, got the document of %q", req.Handle.RecordID(), doc.RecordID)
	}
	if mismatch != "" {
		return rsDocument{}, &resourceError{Code: codeInvalidResponse, Status: status, Detail: mismatch}
	}
	return doc, nil
}

// get sends GET base+path?query and returns the status and at most maxBody
// bytes of the body. A transport failure or a timeout is a
// resource_unavailable [*resourceError].
func (c *resourceClient) get(ctx context.Context, path string, query url.Values) (int, []byte, error) {
	target := c.base + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return 0, nil, &resourceError{Code: codeInvalidResponse, Detail: "cannot build the request: " + err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		detail := "the resource server could not be reached"
		if isTimeout(err) {
			detail = "the resource server did not answer within " + c.http.Timeout.String()
		}
		return 0, nil, &resourceError{Code: codeUnavailable, Detail: detail, err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		detail := "the answer was cut off"
		if isTimeout(err) {
			detail = "the resource server did not finish its answer within " + c.http.Timeout.String()
		}
		return 0, nil, &resourceError{Code: codeUnavailable, Status: resp.StatusCode, Detail: detail, err: err}
	}
	if len(body) > maxBody {
		return 0, nil, &resourceError{
			Code:   codeInvalidResponse,
			Status: resp.StatusCode,
			Detail: "the answer is larger than " + strconv.Itoa(maxBody) + " bytes",
		}
	}
	return resp.StatusCode, body, nil
}

// isTimeout reports whether err is a deadline or a client timeout.
func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &te) && te.Timeout()
}

// decode unmarshals a JSON body into v, or returns an
// invalid_resource_response [*resourceError].
func decode(status int, body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return &resourceError{Code: codeInvalidResponse, Status: status, Detail: "the answer is not the expected JSON: " + err.Error(), err: err}
	}
	return nil
}

// statusError maps an unexpected status to a [*resourceError].
func statusError(status int, body []byte) error {
	e := &resourceError{Status: status}
	switch {
	case status == http.StatusNotFound:
		e.Code = codeNotFound
		e.Detail = "the resource server has no such record"
	case status >= 500:
		e.Code = codeUnavailable
		e.Detail = "the resource server failed with " + strconv.Itoa(status)
	default:
		e.Code = codeInvalidResponse
		e.Detail = "unexpected status " + strconv.Itoa(status)
	}
	if len(body) > 0 && len(body) <= 200 && json.Valid(body) {
		e.Detail += ": " + string(body)
	}
	return e
}

// The codes of a [*resourceError]: failures of the resource server, as
// opposed to the [mcpid.Code]s, which are failures of the tool arguments.
const (
	// codeNotFound: the record does not exist, or not for this caller.
	codeNotFound = "not_found"
	// codeUnavailable: the resource server failed (5xx), timed out or could
	// not be reached; the same call may work later.
	codeUnavailable = "resource_unavailable"
	// codeInvalidResponse: the resource server answered something this
	// server cannot use (not JSON, an unexpected status, a malformed 409).
	codeInvalidResponse = "invalid_resource_response"
	// codeInternal: this server failed; never expected.
	codeInternal = "internal_error"
)

// resourceError is a failure of the resource server. Its JSON form is an
// envelope shaped like [mcpid.Error]'s, so that an agent reads one kind of
// error object whatever went wrong.
type resourceError struct {
	Code   string // one of the code constants above
	Status int    // the HTTP status, or 0 when there was no answer
	Detail string // what happened, for people
	err    error  // the underlying error, if any
}

// Error returns the message: the code, what happened and the hint.
func (e *resourceError) Error() string {
	return "searchfetch: " + e.Code + ": " + e.Detail + "; " + e.hint()
}

// Unwrap returns the underlying transport or decoding error, if any.
func (e *resourceError) Unwrap() error { return e.err }

// hint tells the agent what to do next.
func (e *resourceError) hint() string {
	switch e.Code {
	case codeNotFound:
		return "check that the id was passed exactly as search returned it; otherwise the record is gone, search again"
	case codeUnavailable:
		return "retry later; the id and connection_id were fine"
	}
	return "report this to the server operator; retrying is unlikely to help"
}

// MarshalJSON returns the tool-error envelope:
//
//	{"type":"adapter_error","code":…,"message":…,"hint":…,"retryable":…,"status":…}
func (e *resourceError) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type      string `json:"type"`
		Code      string `json:"code"`
		Message   string `json:"message"`
		Hint      string `json:"hint"`
		Retryable bool   `json:"retryable"`
		Status    int    `json:"status,omitempty"`
	}{"adapter_error", e.Code, e.Error(), e.hint(), e.Code == codeUnavailable, e.Status})
}

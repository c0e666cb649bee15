package mcpid

import (
	"net/url"
	"strconv"
)

// Scope tells where the connection of a [FetchRequest] came from.
type Scope uint8

// The scopes of a [FetchRequest].
const (
	// ScopeUnscoped: no connection is forwarded; the resource server picks
	// the record's connection itself and may answer ambiguous_connection.
	ScopeUnscoped Scope = iota
	// ScopeEmbedded: the id names its connection (connection/stream:record
	// or connection/:opaque).
	ScopeEmbedded
	// ScopeExplicit: a legacy id, scoped by the connection_id argument.
	ScopeExplicit
)

// String returns "unscoped", "embedded" or "explicit".
func (s Scope) String() string {
	switch s {
	case ScopeUnscoped:
		return "unscoped"
	case ScopeEmbedded:
		return "embedded"
	case ScopeExplicit:
		return "explicit"
	}
	return "Scope(" + strconv.Itoa(int(s)) + ")"
}

// FetchRequest is a resolved fetch tool call. It holds what to ask the
// resource server for. Build one with [ResolveFetch]; the zero FetchRequest
// is what every error comes with, and it has no valid Handle.
type FetchRequest struct {
	// Handle is the parsed id.
	Handle Handle
	// ConnectionID is the connection to forward, or "" for an unscoped
	// request. It is the embedded or the explicit connection, never
	// anything else.
	ConnectionID string
	// Scope tells where ConnectionID came from.
	Scope Scope
	// EchoID is the id as given, which the fetched document must carry as
	// its id so that the model sees the value it passed.
	EchoID string
}

// RecordPath returns the path of the record on the resource server. The
// path is /v1/streams/{stream}/records/{record_id}, in the layout this
// package was designed around, with both segments escaped by
// [url.PathEscape], so that no byte of the id can add, remove or climb a
// path segment. It returns "" for the zero FetchRequest and for an opaque
// handle: a server resolves the opaque base id, [Handle.BaseID], within the
// request's connection itself, and never builds a path from it.
func (r FetchRequest) RecordPath() string {
	if !r.Handle.IsValid() || r.Handle.IsOpaque() {
		return ""
	}
	return "/v1/streams/" + url.PathEscape(r.Handle.Stream()) +
		"/records/" + url.PathEscape(r.Handle.RecordID())
}

// Query returns the query parameters of the request. They hold
// connection_id when the request is scoped, nothing otherwise. The map is
// new on every call.
func (r FetchRequest) Query() url.Values {
	q := url.Values{}
	if r.ConnectionID != "" {
		q.Set(FieldConnectionID, r.ConnectionID)
	}
	return q
}

// ResolveFetch merges the fetch tool's two arguments into one scoped
// request. They are the id and the optional connection_id; it does no I/O:
//
//	id        connection_id   result
//	c1/s:r    ""              scoped to c1, ScopeEmbedded (c1/:x alike)
//	c1/s:r    c1              scoped to c1, ScopeEmbedded
//	c1/s:r    c2              conflicting_connection_id
//	s:r       ""              unscoped, ScopeUnscoped
//	s:r       c               scoped to c, ScopeExplicit
//	malformed any             invalid_id
//	valid     malformed       invalid_connection_id
//
// A non-empty connection_id is the connection id as the resource server
// names it, unescaped, and must be a name: not ".", without '\', "..",
// control characters or invalid UTF-8. It may contain '/' and ':' (a GCP
// resource name projects/p1/connections/c2, an ARN), since it travels
// only as a query value; an embedded connection is compared with it after
// decoding.
//
// When several things are wrong, the id is judged first: a malformed id is
// invalid_id whatever connection_id holds; then a malformed connection_id
// is invalid_connection_id, even when the id embeds a connection; only two
// well-formed connections can conflict. Every error is an [*Error] and
// comes with the zero FetchRequest, so nothing can reach a resource
// server. ResolveFetch never invents or rewrites a connection id.
//
// ResolveFetch does not allocate on success, but to decode an embedded
// connection that holds escapes when connection_id is empty.
func ResolveFetch(id, connectionID string) (FetchRequest, error) {
	h, f := parse(id)
	if f.fault != faultNone {
		return FetchRequest{}, f.err(FieldID, id)
	}
	if connectionID != "" {
		if f := checkPart(connectionID, "", connectionBytes); f.fault != faultNone {
			return FetchRequest{}, f.err(FieldConnectionID, connectionID)
		}
	}
	switch {
	case h.IsSelfContained():
		if connectionID == "" {
			connectionID = h.ConnectionID()
		} else if !h.embeds(connectionID) {
			return FetchRequest{}, &Error{
				Code:     CodeConflictingConnectionID,
				Field:    FieldConnectionID,
				Segment:  SegmentConnection,
				Offset:   -1,
				Input:    connectionID,
				Embedded: h.ConnectionID(),
			}
		}
		return FetchRequest{Handle: h, ConnectionID: connectionID, Scope: ScopeEmbedded, EchoID: id}, nil
	case connectionID != "":
		return FetchRequest{Handle: h, ConnectionID: connectionID, Scope: ScopeExplicit, EchoID: id}, nil
	}
	return FetchRequest{Handle: h, EchoID: id}, nil
}

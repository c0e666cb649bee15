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
	// ScopeDefault: an id issued before the grammar, scoped by the
	// server's default connection because the call named none.
	ScopeDefault
)

// String returns "unscoped", "embedded", "explicit" or "default".
func (s Scope) String() string {
	switch s {
	case ScopeUnscoped:
		return "unscoped"
	case ScopeEmbedded:
		return "embedded"
	case ScopeExplicit:
		return "explicit"
	case ScopeDefault:
		return "default"
	}
	return "Scope(" + strconv.Itoa(int(s)) + ")"
}

// FetchRequest is a resolved fetch tool call: what to ask the resource
// server for. Build one with [ResolveFetch].
type FetchRequest struct {
	Handle       Handle
	ConnectionID string // the embedded or explicit connection, or "" when unscoped
	Scope        Scope  // where ConnectionID came from
	EchoID       string // the id as given, which the fetched document carries
}

// RecordPath returns /v1/streams/{stream}/records/{record_id}, both segments
// escaped with [url.PathEscape]. It is "" for an opaque handle, whose base id
// a server looks up as a key and never turns into a path.
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

// ResolveFetch merges the fetch tool's id and optional connection_id into
// one scoped request, with no I/O. The id's embedded connection wins; an
// equal connection_id is accepted, a different one is an error. Every error
// is an [*Error] with the zero FetchRequest.
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

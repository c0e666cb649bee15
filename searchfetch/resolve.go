package searchfetch

import (
	"context"
	"errors"

	"github.com/mcpid/mcpid"
)

// This file holds how an id a model passed becomes the request a backend
// reads, for the fetch tool and for a server's own tools ([Tools.Resolve]):
// its seal opened, its alias mapped, a bare id scoped, and then resolved,
// all in one path, so that every tool reads the record fetch reads.

// Resolve resolves id and connectionID, arguments of the server's own tool
// named tool (update_dashboard, say), exactly as fetch does, without the
// backend. It asks [Options.Authorize] with Access.Tool set to tool, which
// an authorizer refuses if unknown and by which it tells a write from a
// read. Its error is the [*mcpid.Error] to answer with.
func (t *Tools) Resolve(ctx context.Context, tool, id, connectionID string) (mcpid.FetchRequest, error) {
	req, access, _, err := t.resolveID(tool, id, connectionID)
	if err == nil {
		err = t.authorize(ctx, access)
	}
	if err != nil {
		return mcpid.FetchRequest{}, t.hints.worded(envelope(err))
	}
	return req, nil
}

// resolveID returns the request that arg, a tool's id argument, and conn,
// its connection_id, name, with the real connection, and the access the
// authorizer is asked for. sealed reports whether arg was opened from a
// seal.
func (t *Tools) resolveID(tool, arg, conn string) (req mcpid.FetchRequest, a Access, sealed bool, err error) {
	id, sealed, bare, err := t.open(arg)
	switch {
	case err != nil:
	case bare:
		req, err = t.bareRequest(id, conn)
	default:
		req, err = mcpid.ResolveFetch(id, t.explicitFor(id, conn))
	}
	if err != nil {
		return mcpid.FetchRequest{}, Access{}, false, t.idError(err)
	}
	// The id stays as shown (req.Handle, req.EchoID); the connection it
	// or the argument names is the real one from here on.
	req.ConnectionID = t.realConnection(req.ConnectionID)
	return req, Access{Tool: tool, ConnectionID: req.ConnectionID, ID: arg, Handle: req.Handle}, sealed, nil
}

// open returns the id that a tool's id argument carries, and whether it
// is bare. Without a Sealer it is the argument itself, bare with BareIDs
// when mcpid.Parse rejects it (an id that parses is read by the grammar).
// With one it is the id the seal opens to (sealed), else the argument
// itself: with AcceptUnsealed when it parses, else bare with BareIDs, so
// that a cut or made-up sealed id is looked up whole and finds nothing.
func (t *Tools) open(arg string) (id string, sealed, bare bool, err error) {
	if t.opts.Sealer == nil {
		if t.opts.BareIDs {
			_, err := mcpid.Parse(arg)
			return arg, false, err != nil, nil
		}
		return arg, false, false, nil
	}
	id, err = t.opts.Sealer.Open(arg)
	if err == nil {
		return id, true, false, nil
	}
	if t.opts.AcceptUnsealed {
		if _, perr := mcpid.Parse(arg); perr == nil || !t.opts.BareIDs {
			return arg, false, false, nil
		}
	}
	if t.opts.BareIDs {
		return arg, false, true, nil
	}
	return "", false, false, err
}

// bareRequest returns the request of the bare id id: the record whose key
// is id, whole, in the connection conn names (ScopeExplicit), else in
// DefaultConnection (mcpid.ScopeDefault). Its Handle is the opaque handle
// of that key in that connection, and its EchoID id as given. An id that
// is not valid UTF-8, holds a control character or is over
// MaxArgumentsSize is invalid_id, as is one with no connection to read.
func (t *Tools) bareRequest(id, conn string) (mcpid.FetchRequest, error) {
	scope := mcpid.ScopeExplicit
	if conn != "" {
		// ResolveFetch checks a connection_id as fetch does; the legacy
		// id beside it always parses.
		if _, err := mcpid.ResolveFetch("bare:id", conn); err != nil {
			return mcpid.FetchRequest{}, err
		}
	} else {
		conn, scope = t.opts.DefaultConnection, mcpid.ScopeDefault
	}
	switch {
	case len(id) > MaxArgumentsSize:
		return mcpid.FetchRequest{}, t.bareError("the id is larger than the limit", t.hints.codes[mcpid.CodeInvalidID])
	case conn == "":
		return mcpid.FetchRequest{}, t.bareError("the id names no connection", t.hints.bare)
	}
	handle, err := mcpid.Encode(conn, "", id)
	if err != nil {
		return mcpid.FetchRequest{}, t.bareError("the id is empty, not valid UTF-8, or holds a control character", t.hints.codes[mcpid.CodeInvalidID])
	}
	req, err := mcpid.ResolveFetch(handle, "")
	if err != nil {
		return mcpid.FetchRequest{}, err
	}
	req.Scope, req.EchoID = scope, id
	return req, nil
}

// bareError returns the invalid_id error of a bare id.
func (t *Tools) bareError(message, hint string) *mcpid.Error {
	e := mcpid.NewError(mcpid.CodeInvalidID, message, hint)
	e.Field = mcpid.FieldID
	return e
}

// idError returns err with the id argument's own name as its Field
// (Options.IDArg), where that is not "id".
func (t *Tools) idError(err error) error {
	var e *mcpid.Error
	if t.opts.IDArg == mcpid.FieldID || !errors.As(err, &e) || e == nil || e.Field != mcpid.FieldID {
		return err
	}
	c := *e
	c.Field = t.opts.IDArg
	return &c
}

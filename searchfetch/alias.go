package searchfetch

import (
	"errors"

	"github.com/mcpid/mcpid"
)

// This file holds what Options.Aliases changes: the model sees each
// aliased connection by its alias, in ids and in the lists of an
// ambiguous_connection error, and everything behind the tools (the
// authorizer, the backend) sees the real connection id.

// realConnection returns the connection that c, a connection as the model
// gave it, names: the connection whose alias c is, or c itself.
func (t *Tools) realConnection(c string) string {
	if conn, ok := t.opts.Aliases.Connection(c); ok {
		return conn
	}
	return c
}

// shownConnection returns the connection conn as the model sees it: its
// alias, or conn itself.
func (t *Tools) shownConnection(conn string) string {
	if alias, ok := t.opts.Aliases.Alias(conn); ok {
		return alias
	}
	return conn
}

// explicitFor returns the connection_id argument explicit as fetch
// resolves it beside id: the connection id embeds, as written there, when
// explicit names the same connection once aliases are mapped (one may be
// the alias and the other the real id), and explicit itself otherwise, so
// that mcpid.ResolveFetch reports a conflict in the words the model used.
func (t *Tools) explicitFor(id, explicit string) string {
	if t.opts.Aliases == nil || explicit == "" {
		return explicit
	}
	h, err := mcpid.Parse(id)
	if err != nil || !h.IsSelfContained() {
		return explicit
	}
	if embedded := h.ConnectionID(); t.realConnection(embedded) == t.realConnection(explicit) {
		return embedded
	}
	return explicit
}

// aliasHit returns h as search shows it: with the alias of its connection
// as its ConnectionID, so that its id embeds the alias. It reports false
// when h's connection has no alias but is another connection's alias: an
// id that embeds it would fetch from that other connection.
func (t *Tools) aliasHit(h mcpid.Hit) (mcpid.Hit, bool) {
	if t.opts.Aliases == nil || h.ConnectionID == "" {
		return h, true
	}
	if alias, ok := t.opts.Aliases.Alias(h.ConnectionID); ok {
		h.ConnectionID = alias
		return h, true
	}
	_, taken := t.opts.Aliases.Connection(h.ConnectionID)
	return h, !taken
}

// aliasTaken is why a hit whose connection is another connection's alias
// is dropped.
const aliasTaken = "has a connection id that is another connection's alias"

// aliasedError returns err with the connections an ambiguous_connection
// error lists as the model sees them: each available connection by its
// alias, and each available id re-embedding its connection's alias. Any
// other error is returned as it is.
func (t *Tools) aliasedError(err error) error {
	var e *mcpid.Error
	if t.opts.Aliases == nil || !errors.As(err, &e) || e == nil || e.Code != mcpid.CodeAmbiguousConnection {
		return err
	}
	c := *e
	if e.Available != nil {
		c.Available = make([]string, len(e.Available))
		for i, conn := range e.Available {
			c.Available[i] = t.shownConnection(conn)
		}
	}
	if e.AvailableIDs != nil {
		c.AvailableIDs = make([]string, len(e.AvailableIDs))
		for i, id := range e.AvailableIDs {
			c.AvailableIDs[i] = t.aliasedID(id)
		}
	}
	return &c
}

// aliasedID returns id with the alias of the connection it embeds, or id
// itself when that connection has no alias or id embeds none.
func (t *Tools) aliasedID(id string) string {
	h, err := mcpid.Parse(id)
	if err != nil || !h.IsSelfContained() {
		return id
	}
	alias, ok := t.opts.Aliases.Alias(h.ConnectionID())
	if !ok {
		return id
	}
	if aliased, err := mcpid.Encode(alias, h.Stream(), h.RecordID()); err == nil {
		return aliased
	}
	return id
}

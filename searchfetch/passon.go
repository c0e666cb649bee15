package searchfetch

import (
	"context"
	"errors"
	"strings"

	"github.com/mcpid/mcpid"
)

// backendError returns the tool error for err, an error of the backend for
// a call that a describes, as the model can act on it. Result.Err is err
// itself.
//
// With an authorizer, an ambiguous_connection error lists only the
// connections (or ids) whose access a for them the authorizer allows: it is
// forbidden when it allows none ([Tools.readableOnly]). With aliases, it
// lists each connection by its alias, as search shows it
// ([Tools.aliasedError]).
//
// In ModeChatGPT fetch takes no connection_id, so no answer may ask for
// one, whatever code the backend returns:
//   - an ambiguous_connection error of fetch lists instead the
//     self-contained id of the record in each connection
//     ([mcpid.AmbiguousConnectionIDs]), so that the model retries with an
//     id. Those ids are sealed only when the id given was itself sealed
//     (sealed): sealing them for an id accepted unsealed would mint seals
//     for ids that no search issued, which would keep opening once
//     AcceptUnsealed is off;
//   - an ambiguous_connection error of search (req is nil), which has no
//     id to list, keeps its message and lists no connection;
//   - an error of any other code lists no connection, and a hint that
//     names connection_id is replaced by the mode's hint for its code.
//
// An error of the search backend whose hint is mcpid's default for a code
// about fetch's arguments gets the search tool's hint ([Tools.searchError]).
func (t *Tools) backendError(ctx context.Context, err error, a Access, req *mcpid.FetchRequest, sealed bool) Result {
	shown := t.readableOnly(ctx, err, a)
	if req == nil && a.Tool == t.opts.SearchName {
		shown = t.searchError(shown)
	}
	return t.passOn(shown, err, req, sealed)
}

// searchError returns err, an error of the search backend, as the search
// tool answers it. search takes only a query, so an error whose hint is
// mcpid's default for a code about fetch's arguments (an id, a
// connection_id, a list of connections or ids to retry with) would name a
// step that cannot succeed: it gets the search's hint instead, and an
// ambiguous_connection error keeps its message but lists nothing to retry
// with, in both modes. Any other error is returned as it is.
func (t *Tools) searchError(err error) error {
	var e *mcpid.Error
	if !errors.As(err, &e) || e == nil || !searchCodes[e.Code] || e.Hint() != defaultHint(e) {
		return err
	}
	c := e.WithHint(t.hints.search)
	if c.Code == mcpid.CodeAmbiguousConnection {
		c.Available, c.AvailableIDs = nil, []string{}
	}
	return c
}

// passOn returns the tool error for shown, an error that someone else wrote
// (a backend, an authorizer), with Result.Err set to cause: in ModeChatGPT
// as backendError describes it (req nil for an error of no fetch's
// backend), and with the tools' hints where shown has mcpid's.
func (t *Tools) passOn(shown, cause error, req *mcpid.FetchRequest, sealed bool) Result {
	r := t.errorResult(t.chatGPTError(t.aliasedError(shown), req, sealed))
	r.Err = cause
	return r
}

// chatGPTError returns err as backendError describes it: unchanged but in
// ModeChatGPT.
func (t *Tools) chatGPTError(err error, req *mcpid.FetchRequest, sealed bool) error {
	var e *mcpid.Error
	if t.opts.Mode != ModeChatGPT || !errors.As(err, &e) || e == nil {
		return err
	}
	if e.Code == mcpid.CodeAmbiguousConnection && e.AvailableIDs == nil {
		if req == nil {
			c := e.WithHint(t.hints.chatGPT)
			c.Available, c.AvailableIDs = nil, []string{}
			return c
		}
		amb := mcpid.AmbiguousConnectionIDs(req.Handle.BaseID(), e.Available)
		if sealed {
			for i, id := range amb.AvailableIDs {
				amb.AvailableIDs[i] = t.opts.Sealer.Seal(id)
			}
		}
		return amb
	}
	asks := asksForConnection(e.Hint())
	if !asks && e.Available == nil {
		return err
	}
	c := *e
	c.Available = nil
	if !asks {
		return &c
	}
	hint, ok := t.hints.codes[e.Code]
	if !ok || asksForConnection(hint) {
		hint = t.hints.chatGPT
	}
	return c.WithHint(hint)
}

// asksForConnection reports whether hint names the connection_id argument
// (as connection_id or connection id, in any case).
func asksForConnection(hint string) bool {
	h := strings.ToLower(hint)
	return strings.Contains(h, "connection_id") || strings.Contains(h, "connection id")
}

// readableOnly returns err with only the connections the caller may read
// when it is an ambiguous_connection error: the connections it lists, or
// the connections of the ids it lists, each asked of the authorizer as a
// with that connection, at most once each. An error whose every entry is
// allowed is returned as it is; one with some left out is a new
// ambiguous_connection error in mcpid's words (its count must not tell of
// the others); one with none allowed is forbidden, or the authorizer's own
// answer when it failed to decide.
func (t *Tools) readableOnly(ctx context.Context, err error, a Access) error {
	var e *mcpid.Error
	if t.opts.Authorize == nil || !errors.As(err, &e) || e == nil || e.Code != mcpid.CodeAmbiguousConnection {
		return err
	}
	list, conn := e.Available, func(c string) string { return c }
	if e.AvailableIDs != nil {
		list, conn = e.AvailableIDs, func(id string) string {
			h, err := mcpid.Parse(id)
			if err != nil || !h.IsSelfContained() {
				return "" // read as unscoped: the authorizer decides
			}
			return h.ConnectionID()
		}
	}
	kept := make([]string, 0, len(list))
	verdicts := make(map[string]error, len(list))
	var failed error // the first answer that was no decision
	for _, entry := range list {
		c := conn(entry)
		v, asked := verdicts[c]
		if !asked {
			a.ConnectionID = c
			v = t.authorize(ctx, a)
			verdicts[c] = v
		}
		switch {
		case v == nil:
			kept = append(kept, entry)
		case !denied(v) && failed == nil:
			failed = v
		}
	}
	switch {
	case len(kept) == len(list):
		return err
	case len(kept) == 0 && failed != nil:
		return failed
	case len(kept) == 0:
		return errForbidden
	case e.AvailableIDs != nil:
		return &mcpid.Error{Code: mcpid.CodeAmbiguousConnection, Offset: -1, AvailableIDs: kept}
	}
	return mcpid.AmbiguousConnection(kept)
}

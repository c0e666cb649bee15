package searchfetch

import (
	"errors"
	"strings"

	"github.com/mcpid/mcpid"
)

// relayedError returns the tool error for err, an error of the backend,
// as the model can act on it. Result.Err is err itself.
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
func (t *Tools) relayedError(err error, req *mcpid.FetchRequest, sealed bool) Result {
	r := t.errorResult(t.chatGPTError(err, req, sealed))
	r.Err = err
	return r
}

// chatGPTError returns err as relayedError describes it: unchanged but in
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

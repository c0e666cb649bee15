package searchfetch

import (
	"context"
	"strconv"
	"unicode/utf8"

	"github.com/mcpid/mcpid"
)

// selection is what a search shows of the hits its backend returned,
// from the page's first readable hit on.
type selection struct {
	// hits are the hits to show, in order, each with the id that fetches
	// it (sealed with a Sealer), each id once.
	hits []mcpid.Hit
	// at holds, for each of hits, its place among the readable hits: a
	// cursor that passes hits[i] counts at[i]+1 readable hits passed.
	at []int
	// beyond counts the fetchable hits, each id once, after the last of
	// hits: those the window had no room for.
	beyond int
	// dropped counts the readable hits of the page left out because no
	// id the tools show could fetch them; they count among the hits not
	// shown.
	dropped int
	// denied counts the hits left out because the caller may not read
	// their connection; they are counted nowhere.
	denied int
	// unsure is set when hits of the page after those kept were neither
	// shown nor counted: their connection's verdict did not arrive in
	// time. More hits may exist.
	unsure bool
	// readable counts the readable hits of the whole backend page as a
	// cursor counts them (duplicates and those it passed included).
	readable int
	// none, when set, is why the page has readable hits and no id can
	// fetch any of them: the search's answer, unless a further backend
	// page may hold some.
	none error
}

// counted returns the readable hits of the page that count: those shown
// or not, the unfetchable ones included, each id once.
func (s *selection) counted() int { return len(s.hits) + s.beyond + s.dropped }

// selectHits returns the hits of in to show, from the readable hit from
// on (the hits a cursor passed come before). Each gets the id
// [mcpid.SelfContainedID] gives it, which fetches that hit alone, and each
// id is shown once (the first hit that has it, on this page or an earlier
// one). A hit that no shown id can fetch is dropped: counted, reported
// ([Tools.reportDropped]), and not shown. Such a hit has an empty id, an
// id that is not valid UTF-8 or holds a control character, a connection
// that is not a connection id (as CORP\drive), or no connection and an id
// that is not a legacy stream:record handle (an id that looks
// self-contained is never taken to be one).
//
// Nor is a hit shown whose fetch arguments would exceed [MaxArgumentsSize]
// as a client may write them ([fetchArgsSize]): fetch would refuse them.
//
// With an authorizer, a hit of a connection the caller may not read is
// left out first, uncounted, and never judged ([Options.Authorize]); g
// holds the verdicts. A hit of a connection without a verdict is neither
// shown nor counted, and fails the search while the window still has
// room: which hits the page shows would depend on it (so does where a
// cursor's page starts, for such a hit before it).
//
// With aliases ([Options.Aliases]), a hit of an aliased connection is
// shown with the alias as its connection, which its id embeds; a hit whose
// connection is another connection's alias is dropped, as it would fetch
// from that other connection.
//
// It keeps hits until limit of them are kept, and judges and counts every
// readable hit. It fails only when an authorizer's verdict the page needs
// is undecided; when the page has readable hits and dropped every one of
// them, it sets the selection's none, an invalid_resource_response: one
// odd record does not take down every search that finds it.
func (t *Tools) selectHits(ctx context.Context, in []mcpid.Hit, g *grants, from, limit int) (selection, error) {
	sel := selection{hits: make([]mcpid.Hit, 0, min(len(in), limit)), at: make([]int, 0, min(len(in), limit))}
	seen := make(map[string]struct{}, min(len(in), limit))
	// why the first dropped hit was dropped, and its place among the
	// readable hits: the model reads it, so it never counts denied hits
	// (reportDropped gives the server the backend's index).
	var first string
	firstAt := -1
	readable := 0 // the readable hits before in[i]
	for i, h := range in {
		switch v, err := g.of(h.ConnectionID); v {
		case refused:
			sel.denied++
			continue
		case undecided:
			// An undecided hit before the page's first fails the search
			// too: the cursor counts the readable hits passed, and
			// whether this one was among them (an earlier page may have
			// had a verdict on it) decides where the page starts. Left
			// out, it would start the page past hits never shown.
			if len(sel.hits) < limit {
				return sel, err
			}
			sel.unsure = sel.unsure || readable >= from
			continue
		}
		page := readable >= from
		readable++
		shown, ok := t.aliasHit(h)
		id, why := t.showable(shown)
		if !ok {
			id, why = "", aliasTaken
		}
		if why == "" {
			if _, dup := seen[id]; dup {
				continue
			}
			seen[id] = struct{}{}
			// The line of an id that embeds the hit's connection shows no
			// connection_id, and a hit without a connection has none to
			// show: fetch gets the shown id alone.
			if t.tooLong(id) {
				why = tooLong
			}
		}
		switch {
		case !page:
		case why != "":
			sel.dropped++
			if firstAt < 0 {
				first, firstAt = why, readable-1
			}
			t.reportDropped(ctx, i, h, why)
		case len(sel.hits) < limit:
			if t.opts.Sealer != nil {
				id = t.opts.Sealer.Seal(id)
			}
			shown.ID = id
			sel.hits = append(sel.hits, shown)
			sel.at = append(sel.at, readable-1)
		default:
			sel.beyond++
		}
	}
	sel.readable = readable
	if len(sel.hits) == 0 && sel.beyond == 0 && sel.dropped > 0 {
		sel.none = badHit("no hit can be fetched by an id: hit "+strconv.Itoa(firstAt+1)+" "+first, t.hints.badHit)
	}
	return sel, nil
}

// tooLong reports whether the fetch arguments of id, sealed when the
// tools seal, would exceed MaxArgumentsSize. A seal adds "~" and
// mcpid.SealTagLen characters that need no escape, and an IDArg longer
// than "id" its extra bytes.
func (t *Tools) tooLong(id string) bool {
	more := len(t.opts.IDArg) - len(mcpid.FieldID)
	if t.opts.Sealer != nil {
		more += 1 + mcpid.SealTagLen
	}
	return len(id)+more > safeIDLen && fetchArgsSize(id, "")+more > MaxArgumentsSize
}

// showable returns the id that fetches h, unsealed, or why no id the
// tools show can fetch it.
func (t *Tools) showable(h mcpid.Hit) (id, why string) {
	id, embedded := mcpid.SelfContainedID(h.ID, h.ConnectionID)
	if embedded {
		return id, ""
	}
	switch {
	case h.ID == "":
		return "", "has an empty id"
	case !embeddable(h.ID):
		return "", "has an id that is not valid UTF-8 or holds a control character"
	case h.ConnectionID != "":
		return "", "has the connection id " + quote(h.ConnectionID) + ", which is not a valid connection id"
	}
	if hd, err := mcpid.Parse(h.ID); err != nil || hd.IsSelfContained() {
		return "", "has no connection and the id " + quote(h.ID) + ", which is not a stream:record handle"
	}
	return id, ""
}

// embeddable reports whether SelfContainedID embeds id in a valid
// connection: whether id is not empty, is valid UTF-8 and holds no
// control character.
func embeddable(id string) bool {
	_, ok := mcpid.SelfContainedID(id, "c")
	return ok
}

// reportDropped tells the server that the hit h at index i of the
// backend's hits was dropped, and why: to [Options.OnDropped] when set,
// and otherwise to [Options.Logger].
func (t *Tools) reportDropped(ctx context.Context, i int, h mcpid.Hit, why string) {
	err := badHit("the hit "+why, t.hints.badHit)
	if t.opts.OnDropped != nil {
		t.opts.OnDropped(i, h, err)
		return
	}
	t.logger().WarnContext(ctx, "searchfetch: search hit dropped", "tool", t.opts.SearchName, "index", i, "error", err)
}

// tooLong is why a hit whose fetch arguments are too long is dropped.
var tooLong = "has an id whose fetch arguments would exceed " + strconv.Itoa(MaxArgumentsSize) + " bytes"

// fetchArgsSize returns the most bytes a client may write for the fetch
// arguments {"id": id, "connection_id": conn} (without connection_id when
// conn is ""): JSON with a space after each ':' and ',' (as Python's json
// writes it), every non-ASCII rune written as \uXXXX (a surrogate pair,
// 12 bytes, above U+FFFF) as some clients send them, '<', '>' and '&' as
// \u003c and so on (as Go's encoding/json writes them), '"' and '\'
// escaped, and control characters (which no shown id holds) as \u00XX.
func fetchArgsSize(id, conn string) int {
	const (
		idArg   = len(`{"id": ""}`)
		connArg = len(`, "connection_id": ""`)
	)
	n := idArg + escapedSize(id)
	if conn != "" {
		n += connArg + escapedSize(conn)
	}
	return n
}

// escapedSize returns the bytes of s in a JSON string as fetchArgsSize
// counts them, quotes aside.
func escapedSize(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r > 0xFFFF {
			n += 12
		} else {
			n += 6
		}
		i += size
	}
	return n
}

// safeIDLen is the longest id whose fetch arguments fit MaxArgumentsSize
// however they are escaped: no byte takes more than 6 bytes escaped.
const safeIDLen = (MaxArgumentsSize - len(`{"id": ""}`)) / 6

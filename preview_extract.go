package mcpid

import (
	"encoding/json"
	"strings"

	"github.com/mcpid/mcpid/internal/jsonlit"
)

// ExtractIDs returns the ids a preview shows, in order and byte for byte,
// or nil when it shows none: the inverse of [RenderPreview] in both
// formats, whatever the free text holds.
func ExtractIDs(text string) []string {
	hits := ExtractHits(text)
	if len(hits) == 0 {
		return nil
	}
	ids := make([]string, len(hits))
	for i := range hits {
		ids[i] = hits[i].ID
	}
	return ids
}

// ExtractHits returns the hits a preview shows, in order, with the fields
// it shows, as they are shown (a cut value ends in "…"), or nil when the
// text holds none. A server puts them in structuredContent, so that a host
// that shows the model that instead of the text shows the same hits.
func ExtractHits(text string) []Hit {
	if strings.HasPrefix(text, "{") {
		return jsonHits(text)
	}
	var hits []Hit
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if h, ok := lineHit(line); ok {
			hits = append(hits, h)
		}
	}
	return hits
}

// jsonHits returns the hits of the JSON form.
func jsonHits(text string) []Hit {
	var v struct {
		Results []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
			URL   string `json:"url"`
			Text  string `json:"text"`
		} `json:"results"`
	}
	if json.Unmarshal([]byte(text), &v) != nil || len(v.Results) == 0 {
		return nil
	}
	hits := make([]Hit, len(v.Results))
	for i, r := range v.Results {
		hits[i] = Hit{ID: r.ID, Title: r.Title, URL: r.URL, Snippet: r.Text}
	}
	return hits
}

// lineHit returns the hit of a line of the text form, or false when line
// is not a hit line.
func lineHit(line string) (Hit, bool) {
	i := 0
	for i < len(line) && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	if i == 0 || !strings.HasPrefix(line[i:], idKey) {
		return Hit{}, false
	}
	id, rest, ok := readValue(line[i+len(idKey):])
	if !ok {
		return Hit{}, false
	}
	h := Hit{ID: id}
	if after, found := strings.CutPrefix(rest, connectionKey); found {
		if h.ConnectionID, rest, ok = readValue(after); !ok {
			h.ConnectionID = ""
			return h, true
		}
	}
	for _, fd := range textFields {
		if fd.bare {
			after, found := strings.CutPrefix(rest, fd.key)
			if found {
				*hitValue(&h, fd.val), rest, _ = readValue(after)
			}
			continue
		}
		after, found := strings.CutPrefix(rest, fd.key[:len(fd.key)-1])
		if !found {
			continue
		}
		var v string
		if v, rest, ok = readQuoted(after); !ok {
			break
		}
		*hitValue(&h, fd.val) = v
	}
	return h, true
}

// readValue reads an id or connection id of the text form at the start of
// s, bare up to the next space or a JSON string literal, and returns it
// with the rest of s.
func readValue(s string) (v, rest string, ok bool) {
	if strings.HasPrefix(s, `"`) {
		return readQuoted(s)
	}
	if j := strings.IndexByte(s, ' '); j >= 0 {
		return s[:j], s[j:], true
	}
	return s, "", true
}

// readQuoted decodes the JSON string literal at the start of s by the rule
// of encoding/json, the one that decodes the JSON form (a lone surrogate
// escape becomes U+FFFD in both forms), and returns it with the rest of s.
//
// It is no JSON scanner: the text form is lines of its own, not JSON, and
// only its quoted values are JSON string literals, each read whole.
func readQuoted(s string) (v, rest string, ok bool) {
	end, _, ok := jsonlit.End(s, 0)
	if ok {
		v, ok = jsonlit.Unquote(s[:end])
	}
	if !ok {
		return "", s, false
	}
	return v, s[end:], true
}

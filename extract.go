package mcpid

import (
	"encoding/json"
	"strings"
)

// ExtractIDs returns the ids a preview shows, in order and byte for byte:
// it is the inverse of [RenderPreview] in both formats, whatever the free
// text holds. It returns nil when the text holds no id.
//
// A text that starts with '{' is read as the JSON form: the "id" of each
// element of "results", decoded by encoding/json; nil when it is not such
// an object. Any other text is read as the text form: from every line that
// starts with a number followed by ". id=", the bare id up to the next
// space, or the JSON string literal, decoded as in the JSON form. Titles and snippets cannot
// add, hide or change an id there, since they never hold a line break and
// come after the id.
func ExtractIDs(text string) []string {
	if strings.HasPrefix(text, "{") {
		return jsonIDs(text)
	}
	var ids []string
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if id, ok := lineID(line); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// jsonIDs returns the ids of the JSON form.
func jsonIDs(text string) []string {
	var v struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	if json.Unmarshal([]byte(text), &v) != nil || len(v.Results) == 0 {
		return nil
	}
	ids := make([]string, len(v.Results))
	for i, r := range v.Results {
		ids[i] = r.ID
	}
	return ids
}

// lineID returns the id of a hit line, or false when line is not one.
func lineID(line string) (string, bool) {
	i := 0
	for i < len(line) && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	if i == 0 || !strings.HasPrefix(line[i:], idKey) {
		return "", false
	}
	rest := line[i+len(idKey):]
	if !strings.HasPrefix(rest, `"`) {
		if j := strings.IndexByte(rest, ' '); j >= 0 {
			rest = rest[:j]
		}
		return rest, true
	}
	return unquoteJSON(rest)
}

// unquoteJSON decodes the JSON string literal at the start of s, which
// starts with '"', by the rule of encoding/json, the one that decodes the
// JSON form: a lone surrogate escape becomes U+FFFD in both forms.
func unquoteJSON(s string) (string, bool) {
	end := 1
	for end < len(s) && s[end] != '"' {
		if s[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(s) {
		return "", false
	}
	var id string
	if json.Unmarshal([]byte(s[:end+1]), &id) != nil {
		return "", false
	}
	return id, true
}

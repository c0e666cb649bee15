package mcpid

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// ExtractIDs returns the ids a preview shows, in order and byte for byte:
// it is the inverse of [RenderPreview] in both formats, whatever the free
// text holds. It returns nil when the text holds no id.
//
// A text that starts with '{' is read as the JSON form: the "id" of each
// element of "results", decoded by encoding/json; nil when it is not such
// an object. Any other text is read as the text form: from every line that
// starts with a number followed by ". id=", the bare id up to the next
// space, or the decoded JSON string literal. Titles and snippets cannot
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
// starts with '"'.
func unquoteJSON(s string) (string, bool) {
	var b []byte
	for i := 1; i < len(s); {
		c := s[i]
		if c == '"' {
			return string(b), true
		}
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		e := s[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(s, i)
			if !ok || 0xdc00 <= r && r <= 0xdfff {
				return "", false
			}
			i += 4
			if 0xd800 <= r && r < 0xdc00 {
				// A high surrogate: the low one must follow.
				lo, ok := hex4(s, i+2)
				if !ok || s[i] != '\\' || s[i+1] != 'u' || lo < 0xdc00 || lo > 0xdfff {
					return "", false
				}
				r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
				i += 6
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", false
		}
	}
	return "", false
}

// hex4 decodes the four hex digits of s at i.
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

package downstream

import (
	"errors"
	"strings"
)

// SplitWords splits a command line into words as a POSIX shell does, with
// no expansion of any kind: words are separated by unquoted blanks (space,
// tab, newline); 'single quotes' keep everything between them; "double
// quotes" keep everything but a backslash before ", \, $ or `, which it
// escapes, and before a newline, which it removes; an unquoted backslash
// escapes the next character (a newline: removes it). $, *, ~ and the
// like are ordinary characters. A quote left open, or a backslash at the
// end, is an error.
func SplitWords(s string) ([]string, error) {
	var (
		words []string
		w     strings.Builder
		in    bool // a word has begun, perhaps with "" or ''
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
			continue
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("a single quote is not closed")
			}
			w.WriteString(s[i+1 : i+1+end])
			i += 1 + end
		case '"':
			j, err := doubleQuoted(&w, s, i+1)
			if err != nil {
				return nil, err
			}
			i = j
		case '\\':
			if i+1 == len(s) {
				return nil, errors.New("a backslash ends the command line")
			}
			i++
			if s[i] == '\n' {
				continue // a line continuation: no character, and no word of its own
			}
			w.WriteByte(s[i])
		default:
			w.WriteByte(c)
		}
		in = true
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// doubleQuoted writes to w the text of the double-quoted string that starts
// at s[i], just after its opening quote, and returns the index of its
// closing quote.
func doubleQuoted(w *strings.Builder, s string, i int) (int, error) {
	for ; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return i, nil
		case '\\':
			if i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0 {
				i++
				if s[i] != '\n' {
					w.WriteByte(s[i])
				}
				continue
			}
			w.WriteByte(c)
		default:
			w.WriteByte(c)
		}
	}
	return 0, errors.New("a double quote is not closed")
}

package toolname

import (
	"strings"
	"unicode/utf8"
)

// A Key identifies one tool by its server and its own name there. Both are
// as the server reported them. Key is comparable and can be used as a map
// key.
type Key struct {
	Server string
	Tool   string
}

func compareKeys(a, b Key) int {
	if c := strings.Compare(a.Server, b.Server); c != 0 {
		return c
	}
	return strings.Compare(a.Tool, b.Tool)
}

// checkKey returns the error for a key whose server or tool is empty or not
// valid UTF-8, or nil. index is the key's position, for the error.
func checkKey(index int, k Key) *Error {
	if off := badField(k.Server); off != validField {
		return keyError(index, "server", k.Server, off)
	}
	if off := badField(k.Tool); off != validField {
		return keyError(index, "tool", k.Tool, off)
	}
	return nil
}

// validField is what badField returns for a good field.
const validField = -2

// badField returns validField for a non-empty, valid UTF-8 value, -1 for an empty
// one, and otherwise the offset of its first byte that is not valid UTF-8.
func badField(value string) int {
	if value == "" {
		return -1
	}
	for i := 0; i < len(value); {
		if value[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(value[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return validField
}

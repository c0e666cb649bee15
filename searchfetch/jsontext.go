package searchfetch

import "bytes"

// rawSeparators rewrites, in place, each \u2028 and \u2029 escape of the
// JSON text b, as encoding/json writes it, to the rune itself, which
// encoding/json escapes even without HTML escaping (for JavaScript, whose
// strings once could not hold them; JSON's always could). So the tools'
// JSON, documents and structuredContent alike, is escaped only where JSON
// requires it: '<', '>', '&' (with HTML escaping off), U+2028 and U+2029
// are written as they are, since each \u003c costs 6 bytes and 2 to 3
// tokens where '<' costs one, and markup, mail and logs would pay up to a
// quarter more bytes and half again the tokens. The fetch budget counts
// what marshal writes (see fitJSON). Every other
// escape is kept: a backslash outside a string never occurs, and inside
// one it starts an escape whose next byte is skipped with it, so an
// escaped backslash followed by "u2028" stays text.
func rawSeparators(b []byte) []byte {
	i := bytes.IndexByte(b, '\\')
	if i < 0 {
		return b
	}
	out := b[:i]
	for i < len(b) {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			i++
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) && (string(b[i+2:i+6]) == "2028" || string(b[i+2:i+6]) == "2029") {
			out = append(out, 0xe2, 0x80, 0xa8+b[i+5]-'8')
			i += 6
			continue
		}
		out = append(out, c, b[i+1])
		i += 2
	}
	return out
}

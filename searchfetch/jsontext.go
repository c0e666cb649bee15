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
// what marshal writes (see fitJSON). Every other escape is kept: a
// backslash outside a string never occurs, and inside one a run of
// backslashes is escaped backslashes but for an odd last one, which starts
// an escape, so \\u2028 (an escaped backslash, then text) stays. It
// costs one search of b for "\u202".
func rawSeparators(b []byte) []byte {
	const esc = `\u202`
	out, i := 0, 0 // b[:out] is written; b[i:] is still to read
	for {
		k := bytes.Index(b[i:], []byte(esc))
		if k < 0 || i+k+len(esc) >= len(b) {
			break
		}
		k += i
		last := b[k+len(esc)]
		// The backslashes just before b[k] escape each other in pairs:
		// b[k] starts an escape when there are none left over.
		run := 0
		for j := k - 1; j >= i && b[j] == '\\'; j-- {
			run++
		}
		if run%2 == 1 || last != '8' && last != '9' {
			out += copy(b[out:], b[i:k+len(esc)])
			i = k + len(esc)
			continue
		}
		out += copy(b[out:], b[i:k])
		out += copy(b[out:], []byte{0xe2, 0x80, 0xa8 + last - '8'})
		i = k + len(esc) + 1
	}
	out += copy(b[out:], b[i:])
	return b[:out]
}

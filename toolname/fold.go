package toolname

import (
	"crypto/sha256"
	"encoding/binary"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// hashLen is the number of characters in a hash suffix. The shortest
// hashed name, one character of server, "__" and the hash, takes
// minMaxLen bytes.
const (
	hashLen   = 10
	minMaxLen = 1 + len("__") + hashLen
)

// hashAlphabet is the lower-case RFC 4648 base32 alphabet: every character
// is valid in every profile.
const hashAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// appendFolded appends s to dst folded into r's alphabet: non-ASCII text is
// decomposed with NFKD (é to e plus a combining accent, fullwidth ｆ to f,
// ligature ﬁ to fi), combining marks are dropped, and every rune still
// outside the alphabet becomes one '_'.
func (r *rule) appendFolded(dst []byte, s string) []byte {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		for i := 0; i < len(s); i++ {
			dst = r.appendRune(dst, rune(s[i]))
		}
		return dst
	}
	for _, c := range norm.NFKD.String(s) {
		if unicode.Is(unicode.M, c) {
			continue
		}
		dst = r.appendRune(dst, c)
	}
	return dst
}

func (r *rule) appendRune(dst []byte, c rune) []byte {
	if c < utf8.RuneSelf && r.allowed[c] {
		return append(dst, byte(c))
	}
	return append(dst, '_')
}

// readable reports whether name holds at least one ASCII letter or digit.
func readable(name []byte) bool {
	for _, c := range name {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			return true
		}
	}
	return false
}

// appendHash appends the hashLen-character hash suffix of k, without its
// leading '_'. The hash is SHA-256 over
//
//	uvarint(len(server)) server uvarint(len(tool)) tool [uvarint(salt)]
//
// (the salt only when it is not zero), and the suffix is its first 50 bits,
// most significant first, in hashAlphabet. The length prefixes make the
// input, and so the hash, tell every (server, tool) pair apart.
func appendHash(dst []byte, k Key, salt uint64) []byte {
	in := make([]byte, 0, 3*binary.MaxVarintLen64+len(k.Server)+len(k.Tool))
	in = binary.AppendUvarint(in, uint64(len(k.Server)))
	in = append(in, k.Server...)
	in = binary.AppendUvarint(in, uint64(len(k.Tool)))
	in = append(in, k.Tool...)
	if salt != 0 {
		in = binary.AppendUvarint(in, salt)
	}
	sum := sha256.Sum256(in)
	v := binary.BigEndian.Uint64(sum[:8])
	for i := 0; i < hashLen; i++ {
		dst = append(dst, hashAlphabet[v>>59])
		v <<= 5
	}
	return dst
}

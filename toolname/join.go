package toolname

import "strings"

// separator divides the escaped server from the tool in a routing key.
const separator = "::"

// Join returns the routing key for the tool named tool on the server named
// server: the server with every '%' written as %25 and then every ':' as
// %3A, followed by "::" and the tool exactly as given.
//
// Join accepts every pair of strings, empty ones and invalid UTF-8
// included, and [Split] gives the pair back unchanged. A server that holds
// neither '%' nor ':' appears in the key as it is. Join allocates at most
// once.
func Join(server, tool string) string {
	extra := 0
	for i := 0; i < len(server); i++ {
		if c := server[i]; c == '%' || c == ':' {
			extra += 2
		}
	}
	if extra == 0 {
		return server + separator + tool
	}
	var b strings.Builder
	b.Grow(len(server) + extra + len(separator) + len(tool))
	for i := 0; i < len(server); i++ {
		switch c := server[i]; c {
		case '%':
			b.WriteString("%25")
		case ':':
			b.WriteString("%3A")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString(separator)
	b.WriteString(tool)
	return b.String()
}

// Split is the inverse of [Join]: it splits key at its first "::" and
// unescapes the server part, %3A to ':' and %25 to '%'. The tool is the
// rest of the key, whatever it holds, "::" included.
//
// Split accepts exactly the strings that Join produces. It returns an
// [*Error] with Code [CodeInvalidRoutingKey] when key has no "::", or when
// its server part holds a raw ':' or a '%' that does not start %25 or %3A
// (lower-case %3a is not canonical and is rejected too).
//
// The results are substrings of key unless the server part holds an
// escape: Split does not allocate on success when the server holds no '%',
// and allocates once for the unescaped server otherwise.
func Split(key string) (server, tool string, err error) {
	sep := strings.Index(key, separator)
	if sep < 0 {
		return "", "", routingKeyError(key, -1)
	}
	escaped := key[:sep]
	if i := strings.IndexByte(escaped, ':'); i >= 0 {
		return "", "", routingKeyError(key, i)
	}
	tool = key[sep+len(separator):]
	pct := strings.IndexByte(escaped, '%')
	if pct < 0 {
		return escaped, tool, nil
	}
	// Validate every escape before allocating the unescaped server.
	n := pct
	for i := pct; i < len(escaped); i++ {
		if escaped[i] == '%' {
			if !canonicalEscape(escaped[i:]) {
				return "", "", routingKeyError(key, i)
			}
			i += 2
		}
		n++
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(escaped[:pct])
	for i := pct; i < len(escaped); i++ {
		c := escaped[i]
		if c == '%' {
			if escaped[i+1] == '3' {
				c = ':'
			}
			i += 2
		}
		b.WriteByte(c)
	}
	return b.String(), tool, nil
}

// canonicalEscape reports whether s starts with one of the two escapes that
// Join writes.
func canonicalEscape(s string) bool {
	return strings.HasPrefix(s, "%25") || strings.HasPrefix(s, "%3A")
}

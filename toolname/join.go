package toolname

import "strings"

// separator divides the escaped server from the tool in a routing key.
const separator = "::"

// Join returns the routing key of tool on server: the server with '%'
// and ':' escaped as %25 and %3A, "::", then the tool as it is. It accepts
// every pair of strings, and [Split] gives the pair back unchanged.
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
// unescapes the server. It accepts exactly the keys Join writes; any other
// is [ErrInvalidRoutingKey].
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

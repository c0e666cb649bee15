package toolname

import "strings"

// separator divides the escaped server from the tool in a routing key.
const separator = "::"

// Join returns the routing key of tool on server.
//
// The key is the server with every '%' written as %25 and then every ':'
// as %3A, then "::", then the tool exactly as given:
//
//	routing-key = escaped-server "::" tool
//
// An escaped server holds no ':' at all, so the first "::" in a key is
// always the separator, whatever the tool name holds: tool names are never
// escaped and may contain "::", start with ':', or be anything else. '%'
// is escaped first because it is the escape character: a server literally
// named "weird%3A:name" becomes "weird%253A%3Aname", which Split reads
// back as the same name rather than as "weird::name". A server that holds
// neither '%' nor ':', the common case, appears in the key as it is
// ("github::create_issue").
//
// Splitting at the last "::" instead would misroute. The tool "ns::get" on
// the server "kube:prod" has the key
//
//	kube%3Aprod::ns::get
//
// Split at the first "::" gives the server "kube:prod" and the tool
// "ns::get", as intended. Split at the last one, the same key would name
// the tool "get" on a server "kube%3Aprod::ns", or, once unescaped,
// "kube:prod::ns": a call meant for one tool would go to another tool, on
// whatever server answers to that name.
//
// Join accepts every pair of strings, empty ones and invalid UTF-8
// included, and [Split] gives the pair back unchanged. Join allocates at
// most once.
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

// Split is the inverse of [Join].
//
// It splits key at its first "::" and unescapes the server part, %3A to
// ':' and %25 to '%'. The tool is the rest of the key, whatever it holds,
// "::" included. Split(Join(s, t)) is (s, t), and Join of what Split
// returns is the key byte for byte.
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

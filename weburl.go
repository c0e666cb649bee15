package mcpid

import "strings"

// isWebURL reports whether u is an absolute http or https URL that the
// JSON form shows: the scheme in any case, a host, no userinfo (which
// can disguise the host), and only the characters RFC 3986 allows, with
// '%' only before two hex digits. Such a URL needs no escaping in JSON.
func isWebURL(u string) bool {
	i := strings.Index(u, "://")
	if scheme := u[:max(i, 0)]; !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") {
		return false
	}
	rest := u[i+3:]
	host := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		host = rest[:end]
	}
	if host == "" || strings.IndexByte(host, '@') >= 0 {
		return false
	}
	for j := 0; j < len(u); j++ {
		switch c := u[j]; {
		case !uriBytes[c]:
			return false
		case c == '%' && (j+2 >= len(u) || !isHex(u[j+1]) || !isHex(u[j+2])):
			return false
		}
	}
	return true
}

// uriBytes holds the bytes RFC 3986 allows in a URI: printable ASCII but
// the space and "<>\^`{|}.
var uriBytes = func() (t [256]bool) {
	for c := '!'; c <= '~'; c++ {
		t[c] = !strings.ContainsRune("\"<>\\^`{|}", c)
	}
	return t
}()

// isHex reports whether c is a hex digit.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

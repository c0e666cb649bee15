// Package weburl holds the one rule for the url of a search result in the
// JSON form that OpenAI's search/fetch contract reads: the preview
// (mcpid.FormatJSON) and the ChatGPT mode of searchfetch both apply it, so
// that the text and structuredContent agree.
package weburl

import (
	"net/url"
	"strings"
)

// Valid reports whether u is an absolute http or https URL that a JSON
// search result may show as its url: the scheme in any case, a host, no userinfo (which
// can disguise the host), and only the characters RFC 3986 allows, with
// '%' only before two hex digits. Such a URL needs no escaping in JSON.
func Valid(u string) bool {
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

// Reference is the slow, plainly written twin of [Valid] that the tests
// and fuzz targets check it against: net/url parses u as an absolute http
// or https URL with a host and no userinfo, and every byte is one RFC 3986
// allows.
func Reference(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || p.User != nil || p.Opaque != "" {
		return false
	}
	if s := strings.ToLower(p.Scheme); s != "http" && s != "https" {
		return false
	}
	for _, c := range []byte(u) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			return false
		}
	}
	return true
}

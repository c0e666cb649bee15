package searchfetch

import "strings"

// webURL returns s when mcpid.FormatJSON shows it as a hit's url, and ""
// otherwise, so that ChatGPT mode's structuredContent equals the text: an
// absolute http or https URL (the scheme in any case) with a host and no
// userinfo, made only of the printable ASCII characters RFC 3986 allows,
// with '%' only before two hex digits. TestChatGPTURLs holds the two rules
// together.
func webURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") {
		return ""
	}
	host, _, _ := strings.Cut(rest, "/")
	if i := strings.IndexAny(host, "?#"); i >= 0 {
		host = host[:i]
	}
	if host == "" || strings.Contains(host, "@") {
		return ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			return ""
		}
		if c == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])) {
			return ""
		}
	}
	return s
}

// isHex reports whether c is a hexadecimal digit.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

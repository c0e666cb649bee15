package gateway

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// A -header value is NAME=Header-Name: value, for the HTTP downstream
// NAME. Every ${VAR} in the value reads the environment variable VAR when
// the gateway starts, so that a token never needs to be on the command
// line (where ps shows it to every user of the machine). A variable that
// is not set is an error at start, naming the variable; the value itself
// appears in no error and no log line, since it is usually a credential.
// There is no escape: a literal "${" cannot be written.

// headerFlag is one parsed -header: the server it is for, and the header.
type headerFlag struct {
	server, name, value string
}

// errHeaderSyntax is the error of a -header that is not
// NAME=Header-Name: value.
var errHeaderSyntax = errors.New("want NAME=Header-Name: value, with NAME a -server's")

// parseHeader parses one -header value, reading each ${VAR} in it with
// lookup. Its errors name the server, the header and the variable, never
// the value.
func parseHeader(v string, lookup func(string) (string, bool)) (headerFlag, error) {
	server, field, ok := strings.Cut(v, "=")
	if !ok || server == "" {
		return headerFlag{}, errHeaderSyntax
	}
	name, raw, ok := strings.Cut(field, ":")
	name = strings.TrimSpace(name)
	if !ok || !validHeaderName(name) {
		return headerFlag{}, fmt.Errorf("server %q: the header name %q is not a valid HTTP header name: %w", server, clip(name, 64), errHeaderSyntax)
	}
	value, err := expandVars(strings.TrimSpace(raw), lookup)
	if err != nil {
		return headerFlag{}, fmt.Errorf("server %q, header %q: %w", server, name, err)
	}
	if !validHeaderValue(value) {
		return headerFlag{}, fmt.Errorf("server %q, header %q: the value holds a control character (a line break?)", server, name)
	}
	return headerFlag{server: server, name: http.CanonicalHeaderKey(name), value: value}, nil
}

// expandVars replaces each ${VAR} in s with the variable's value; an unset
// variable, a "${" without its "}", or a VAR that is not a variable's name
// is an error naming it.
func expandVars(s string, lookup func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", errors.New(`a "${" without its closing "}"`)
		}
		name := s[i+2 : i+end]
		if !validVarName(name) {
			return "", fmt.Errorf("${%s} does not name an environment variable", clip(name, 64))
		}
		val, ok := lookup(name)
		if !ok {
			return "", fmt.Errorf("the environment variable %s is not set", name)
		}
		b.WriteString(val)
		s = s[i+end+1:]
	}
}

// validVarName reports whether name is a shell variable's name: a letter
// or underscore, then letters, digits and underscores.
func validVarName(name string) bool {
	for i, c := range []byte(name) {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return name != ""
}

// validHeaderName reports whether name is an HTTP field name: a token of
// RFC 9110's tchar.
func validHeaderName(name string) bool {
	for _, c := range []byte(name) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return name != ""
}

// validHeaderValue reports whether value can be sent as an HTTP field
// value: no control character but the tab, so that it can neither end the
// header nor add another.
func validHeaderValue(value string) bool {
	for _, c := range []byte(value) {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

package relay

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A gateway with several downstreams shows every resource URI and URI
// template in a form that names the downstream it came from, so that a
// read or subscription routes only there; with one downstream, every URI
// is shown as that downstream wrote it. Which of the two depends on the
// configuration alone (the number of -server flags), never on which
// downstreams are up or what they list: that would differ between
// replicas and over time, and route a URI a client kept to another
// downstream.
//
// The form of URI u from the downstream named s is
//
//	mcpid:<s, percent-encoded>:<u>
//
// where the name is percent-encoded as in a URI (every byte but the
// unreserved A-Z a-z 0-9 - . _ ~ as %XX, upper-case hex), so that it never
// holds a colon and the first colon after it ends it. So:
//
//   - the form is deterministic, and injective: the name and u are read back
//     from it, and a bare URI (anything not starting with "mcpid:", in any
//     case) is never a form;
//   - it is a valid URI whenever u is (scheme "mcpid", a rootless path that
//     holds u's text unchanged, u's query and fragment its own), except for
//     a u with an IPv6 literal host ("http://[::1]/"), whose brackets a path
//     may not hold;
//   - a template's form is the template's text unchanged after a fixed
//     prefix, so the expansions of a template's form are the forms of the
//     original's expansions;
//   - a URI that a downstream lists or returns which already starts with
//     "mcpid:" is wrapped like any other ("mcpid:a:mcpid:b:x" is the URI
//     "mcpid:b:x" of downstream a), so a form always routes to the
//     downstream it names.

// formScheme is the scheme of the forms.
const formScheme = "mcpid:"

// FormPrefix returns the prefix of the forms of the downstream named server.
func FormPrefix(server string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.WriteString(formScheme)
	for i := 0; i < len(server); i++ {
		c := server[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	b.WriteByte(':')
	return b.String()
}

// IsForm reports whether uri has the shape of a form: it starts with
// "mcpid:", in any case, as a URI's scheme is compared.
func IsForm(uri string) bool {
	return len(uri) >= len(formScheme) && strings.EqualFold(uri[:len(formScheme)], formScheme)
}

// SplitForm returns the encoded downstream name and the downstream's own URI
// of a form; ok is false when uri is not one.
func SplitForm(uri string) (prefix, own string, ok bool) {
	if !IsForm(uri) {
		return "", "", false
	}
	name, own, ok := strings.Cut(uri[len(formScheme):], ":")
	if !ok || name == "" {
		return "", "", false
	}
	return formScheme + name + ":", own, true
}

// RouteError is the error of a read or subscription whose URI routes to
// no downstream: a bare URI while the gateway has several downstreams (it
// lists the forms of those whose listings cover it), or a form that names
// no downstream of this gateway.
type RouteError struct {
	URI   string   // the URI as the caller sent it
	Forms []string // the forms that would route it; none for a form
}

// Error states the fault: the URI, and the forms to use instead.
func (e *RouteError) Error() string {
	if IsForm(e.URI) {
		return fmt.Sprintf("no server of this gateway is named in %q", e.URI)
	}
	if len(e.Forms) == 0 {
		return fmt.Sprintf("%q names no server: this gateway has several, and shows each URI in a form that names its server (mcpid:<server>:<uri>); no server lists this one", e.URI)
	}
	return fmt.Sprintf("%q names no server: this gateway has several; use one of %s", e.URI, strings.Join(e.Forms, ", "))
}

// Forms tells whether a gateway shows URIs in the forms that name their
// downstream: set once, at start, when it was started with several
// downstreams. The zero Forms shows URIs as written; its methods take no
// lock (a tools/call reads it on its path).
type Forms struct{ on atomic.Bool }

// Set says whether URIs are shown in forms; the gateway calls it once,
// before it serves.
func (f *Forms) Set(on bool) { f.on.Store(on) }

// On reports whether URIs are shown in forms.
func (f *Forms) On() bool { return f.on.Load() }

// Out returns the URI that the downstream named server wrote as the
// gateway shows it.
func (f *Forms) Out(server, uri string) string {
	if !f.On() || uri == "" {
		return uri
	}
	return FormPrefix(server) + uri
}

// Rewrite writes, in place, the URI of every resource link and embedded
// resource in content, which the downstream named server returned, as the
// gateway shows it.
func (f *Forms) Rewrite(server string, content []mcp.Content) {
	if !f.On() {
		return
	}
	for _, c := range content {
		switch c := c.(type) {
		case *mcp.ResourceLink:
			c.URI = f.Out(server, c.URI)
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				c.Resource.URI = f.Out(server, c.Resource.URI)
			}
		}
	}
}

package relay

import (
	"net/url"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yosida95/uritemplate/v3"
)

// TestURIForm: the form of a URI names its downstream and holds the URI
// unchanged after a fixed prefix; it reads back to both, is a valid URI
// whenever the URI is, and a URI that already has the shape of a form is
// wrapped like any other, so that the form routes to the downstream it
// names.
func TestURIForm(t *testing.T) {
	for _, tc := range []struct {
		name, server, uri, want string
	}{
		{"file", "docs", "file:///README.md", "mcpid:docs:file:///README.md"},
		{"query and fragment", "docs", "https://example.com/a?b=c#d", "mcpid:docs:https://example.com/a?b=c#d"},
		{"name with colon and space", "my docs:v2", "file:///x", "mcpid:my%20docs%3Av2:file:///x"},
		{"name not ASCII", "dökümanlar", "file:///x", "mcpid:d%C3%B6k%C3%BCmanlar:file:///x"},
		{"a form of another server, wrapped", "a", "mcpid:b:file:///x", "mcpid:a:mcpid:b:file:///x"},
		{"a form in upper case, wrapped", "a", "MCPID:b:x:y", "mcpid:a:MCPID:b:x:y"},
		{"opaque", "s", "urn:isbn:0451450523", "mcpid:s:urn:isbn:0451450523"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := FormPrefix(tc.server) + tc.uri
			assert.Equal(t, tc.want, form)
			prefix, own, ok := SplitForm(form)
			require.True(t, ok)
			assert.Equal(t, FormPrefix(tc.server), prefix)
			assert.Equal(t, tc.uri, own)
			_, err := url.Parse(tc.uri)
			require.NoError(t, err)
			u, err := url.Parse(form)
			require.NoError(t, err, "the form of a valid URI is valid")
			assert.Equal(t, "mcpid", u.Scheme)
		})
	}
}

// TestURIFormInjective: distinct (server, URI) pairs have distinct forms,
// and no bare URI is a form.
func TestURIFormInjective(t *testing.T) {
	servers := []string{"a", "a:b", "a%3Ab", "a b", "A", "mcpid", ":"}
	uris := []string{"file:///x", "b:file:///x", "mcpid:a:file:///x", "3Ab:x", "", "x"}
	seen := map[string][2]string{}
	for _, s := range servers {
		for _, u := range uris {
			f := FormPrefix(s) + u
			if prev, dup := seen[f]; dup {
				t.Fatalf("%q is the form of both %q and %q", f, prev, [2]string{s, u})
			}
			seen[f] = [2]string{s, u}
		}
	}
	for _, bare := range []string{"file:///x", "mcpi:x", "https://mcpid:x@host/"} {
		assert.False(t, IsForm(bare), bare)
	}
}

// TestURIFormTemplate: a template's form expands to the forms of the
// template's expansions, and matches them.
func TestURIFormTemplate(t *testing.T) {
	const tmpl = "file:///docs/{name}{?v}"
	orig, err := uritemplate.New(tmpl)
	require.NoError(t, err)
	form, err := uritemplate.New(FormPrefix("my docs") + tmpl)
	require.NoError(t, err)
	values := uritemplate.Values{}
	values.Set("name", uritemplate.String("read me.md"))
	values.Set("v", uritemplate.String("2"))
	want, err := orig.Expand(values)
	require.NoError(t, err)
	got, err := form.Expand(values)
	require.NoError(t, err)
	assert.Equal(t, FormPrefix("my docs")+want, got)
	assert.NotNil(t, form.Match(got))
}

// TestForms: with forms on, a downstream's URIs and the URIs in its
// content are shown in its form; off (the zero Forms), as written.
func TestForms(t *testing.T) {
	var f Forms
	assert.Equal(t, "file:///x", f.Out("a", "file:///x"), "off: as written")
	f.Set(true)
	assert.Equal(t, "mcpid:a:file:///x", f.Out("a", "file:///x"))
	assert.Empty(t, f.Out("a", ""), "no URI stays none")
	link := &mcp.ResourceLink{URI: "file:///l"}
	embedded := &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///e"}}
	f.Rewrite("a b", []mcp.Content{link, embedded, &mcp.TextContent{Text: "file:///t"}})
	assert.Equal(t, "mcpid:a%20b:file:///l", link.URI)
	assert.Equal(t, "mcpid:a%20b:file:///e", embedded.Resource.URI)
}

// Package namecases holds what the tests of package toolname and the fuzz
// targets share: the one table of routing keys, the reference Split, the
// profiles' rules restated as regular expressions, and the checker of the
// promises Assign makes. It does not import toolname, whose own tests use
// it; its checker reads a table of names through [Table]. It is for tests
// only.
package namecases

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// RoutingKey is a pair and the routing key Join writes for it; Split must
// give the pair back.
type RoutingKey struct {
	Name         string
	Server, Tool string
	Key          string
}

// RoutingKeys is the table of pairs and their routing keys.
var RoutingKeys = []RoutingKey{
	{"plain", "github", "create_issue", "github::create_issue"},
	{"colon in server, :: in tool", "kube:prod", "ns::get", "kube%3Aprod::ns::get"},
	{"server spelled like an escape", "weird%3A:name", "t", "weird%253A%3Aname::t"},
	{"percent in server", "100%", "x", "100%25::x"},
	{"server of colons", ":::", "t", "%3A%3A%3A::t"},
	{"server of percents", "%%", "t", "%25%25::t"},
	{"tool starts with colon", "s", ":t", "s:::t"},
	{"tool is colons", "s", "::::", "s::::::"},
	{"tool holds escapes", "s", "%3A%25%", "s::%3A%25%"},
	{"tool ends in percent", "a", "b%", "a::b%"},
	{"empty server", "", "tool", "::tool"},
	{"empty tool", "server", "", "server::"},
	{"both empty", "", "", "::"},
	{"escaped server, empty tool", "a:b", "", "a%3Ab::"},
	{"non-ASCII", "café:ü", "日本::語", "café%3Aü::日本::語"},
	{"invalid UTF-8", "\xff:\xfe", "\x80", "\xff%3A\xfe::\x80"},
	{"whitespace and controls", " a\tb\n", "\x00", " a\tb\n::\x00"},
	{"lower-case letters after percent", "%3a", "t", "%253a::t"},
}

// BadRoutingKey is a key that Join cannot produce, with the offset the
// error must report (-1: no separator).
type BadRoutingKey struct {
	Name   string
	Key    string
	Offset int
}

// BadRoutingKeys is the table of keys that Split rejects.
var BadRoutingKeys = []BadRoutingKey{
	{"empty", "", -1},
	{"no separator", "github/create_issue", -1},
	{"single colon", "github:create_issue", -1},
	{"raw colon in server", "kube:prod::get", 4},
	{"lower-case escape", "kube%3aprod::get", 4},
	{"short escape", "a%2::t", 1},
	{"escape of another byte", "%41::t", 0},
	{"invalid hex", "%ZZ::t", 0},
	{"trailing percent", "abc%::t", 3},
	{"percent before separator", "%::t", 0},
	{"half escape before separator", "%2::t", 0},
	{"escape split by separator", "%3::At", 0},
	{"valid escape then bad", "%25%2G::t", 3},
	{"raw colon after escape", "%3A:x::t", 3},
}

// referenceKey is a routing key as the specification reads: the server
// part is a run of bytes other than '%' and ':', and the escapes %25 and
// %3A, up to the first "::".
var referenceKey = regexp.MustCompile(`(?s)^((?:[^%:]|%25|%3A)*)::(.*)$`)

// ReferenceSplit is Split written as the specification reads: the server
// part, up to the first "::", is unescaped by replacing %3A and then %25.
func ReferenceSplit(key string) (server, tool string, ok bool) {
	m := referenceKey.FindStringSubmatch(key)
	if m == nil {
		return "", "", false
	}
	server = strings.ReplaceAll(m[1], "%3A", ":")
	server = strings.ReplaceAll(server, "%25", "%")
	return server, m[2], true
}

// Rule is a profile's rule restated as a regular expression, written from
// the provider documentation and independent of the package's byte
// tables, with the profile's own limit.
type Rule struct {
	Name   string
	Re     *regexp.Regexp
	MaxLen int
}

// Rules holds the rule of each profile, in the order OpenAI, Anthropic,
// Gemini, MCP, Portable, and the zero Profile (Portable's rule).
var Rules = []Rule{
	{"OpenAI", regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`), 64},
	{"Anthropic", regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`), 128},
	{"Gemini", regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,62}$`), 63},
	{"MCP", regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`), 128},
	{"Portable", regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,62}$`), 63},
	{"zero", regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,62}$`), 63},
}

// Table is a table of names as [CheckNames] reads it: *toolname.Table,
// with K toolname.Key and F toolname.Fallback.
type Table[K, F any] interface {
	Len() int
	Name(k K) (string, bool)
	Key(name string) (K, bool)
	Fallbacks() []F
}

// key is the shape of toolname.Key.
type key = struct{ Server, Tool string }

// fallback is the shape of toolname.Fallback.
type fallback[K, R any] struct {
	Key    K
	Name   string
	Reason R
}

// CheckNames returns what is wrong with names, the result of Assign for
// keys, or nil. Every name must match re, be at most maxLen bytes and pass
// each of valid (the package's own checkers, such as Profile.Valid); the
// names must be distinct, resolve to their keys, and be the keys' own tool
// names unless a fallback reports them, in order of name; a name holding
// "__" must be reported with the reason qualified, and a name without it
// must be the key's own tool name.
func CheckNames[K interface {
	comparable
	~key
}, R ~uint8, F interface {
	~struct {
		Key    K
		Name   string
		Reason R
	}
}](names Table[K, F], keys []K, re *regexp.Regexp, maxLen int, qualified R, valid ...func(string) bool) error {
	distinct := map[K]bool{}
	for _, k := range keys {
		distinct[k] = true
	}
	if names.Len() != len(distinct) {
		return fmt.Errorf("the table has %d names, want %d", names.Len(), len(distinct))
	}
	owner := map[string]K{}
	for k := range distinct {
		name, ok := names.Name(k)
		if !ok {
			return fmt.Errorf("%q has no name", k)
		}
		if !re.MatchString(name) || len(name) > maxLen || slices.ContainsFunc(valid, func(v func(string) bool) bool { return !v(name) }) {
			return fmt.Errorf("%q is named %q, which is not valid", k, name)
		}
		if other, dup := owner[name]; dup {
			return fmt.Errorf("%q and %q are both named %q", other, k, name)
		}
		owner[name] = k
		if got, ok := names.Key(name); !ok || got != k {
			return fmt.Errorf("resolving %q gives %q, %v; want %q", name, got, ok, k)
		}
	}
	reported := map[K]R{}
	fallbacks := names.Fallbacks()
	for i, f := range fallbacks {
		fb := fallback[K, R](f)
		if i > 0 && fallback[K, R](fallbacks[i-1]).Name >= fb.Name {
			return fmt.Errorf("fallbacks out of order at %d", i)
		}
		if name, _ := names.Name(fb.Key); name != fb.Name || fb.Reason == 0 {
			return fmt.Errorf("fallback %+v disagrees with Name %q", fb, name)
		}
		reported[fb.Key] = fb.Reason
	}
	for k := range distinct {
		name, _ := names.Name(k)
		reason, ok := reported[k]
		switch qualifiedName := strings.Contains(name, "__"); {
		case !ok && name != key(k).Tool:
			return fmt.Errorf("%q is named %q without a fallback", k, name)
		case qualifiedName && reason&qualified == 0:
			// No impersonation: only a qualified name holds "__".
			return fmt.Errorf("%q is named %q, which holds \"__\" but is not qualified", k, name)
		case !qualifiedName && name != key(k).Tool:
			// No look-alike: a bare name is only ever the key's own tool name.
			return fmt.Errorf("%q has the bare name %q, which is not its own tool name", k, name)
		}
	}
	return nil
}

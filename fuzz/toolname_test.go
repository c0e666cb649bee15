package fuzz

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpid/mcpid/internal/testkit/namecases"
	"github.com/mcpid/mcpid/toolname"
)

func FuzzJoinSplit(f *testing.F) {
	for _, k := range namecases.RoutingKeys {
		f.Add(k.Server, k.Tool)
	}
	for _, k := range namecases.BadRoutingKeys {
		f.Add(k.Key, "")
	}
	f.Fuzz(func(t *testing.T, server, tool string) {
		// Join, then Split: the pair comes back.
		key := toolname.Join(server, tool)
		s, tl, err := toolname.Split(key)
		if err != nil || s != server || tl != tool {
			t.Fatalf("Split(Join(%q, %q)) = %q, %q, %v", server, tool, s, tl, err)
		}
		// Split, then Join: every accepted key comes back byte for byte,
		// and Split agrees with the reference.
		for _, k := range []string{server, tool, server + "::" + tool, key} {
			checkSplit(t, k)
		}
	})
}

func checkSplit(t *testing.T, key string) {
	t.Helper()
	server, tool, err := toolname.Split(key)
	refServer, refTool, refOK := namecases.ReferenceSplit(key)
	if (err == nil) != refOK {
		t.Fatalf("Split(%q): err = %v, reference accepts: %v", key, err, refOK)
	}
	if err != nil {
		var e *toolname.Error
		if !errors.As(err, &e) || !errors.Is(err, toolname.ErrInvalidRoutingKey) {
			t.Fatalf("Split(%q): error %v (%T) is not an invalid_routing_key *toolname.Error", key, err, err)
		}
		if e.Input != key || e.Index != -1 || e.Offset < -1 || e.Offset >= len(key) {
			t.Fatalf("Split(%q): bad error fields %+v", key, e)
		}
		if e.Offset >= 0 && key[e.Offset] != ':' && key[e.Offset] != '%' {
			t.Fatalf("Split(%q): offset %d points at %q", key, e.Offset, key[e.Offset])
		}
		if server != "" || tool != "" {
			t.Fatalf("Split(%q) returned %q, %q with an error", key, server, tool)
		}
		return
	}
	if server != refServer || tool != refTool {
		t.Fatalf("Split(%q) = %q, %q; reference %q, %q", key, server, tool, refServer, refTool)
	}
	if got := toolname.Join(server, tool); got != key {
		t.Fatalf("Join(Split(%q)) = %q", key, got)
	}
}

// toolnameProfiles holds every profile, in namecases.Rules' order.
var toolnameProfiles = []toolname.Profile{toolname.OpenAI, toolname.Anthropic, toolname.Gemini, toolname.MCP, toolname.Portable, {}}

// toolnameKeySets is the shared table of key sets that seeds FuzzAssign.
var toolnameKeySets = [][]toolname.Key{
	{{Server: "github", Tool: "create_issue"}, {Server: "github", Tool: "search"}, {Server: "gitlab", Tool: "search"}},
	{{Server: "a.b", Tool: "search"}, {Server: "a_b", Tool: "search"}, {Server: "a-b", Tool: "search"}},
	{{Server: "x", Tool: "café"}, {Server: "y", Tool: "cafe"}, {Server: "z", Tool: "cafe_euszb6ueho"}},
	{{Server: "x", Tool: "ｆｏｏ"}, {Server: "x", Tool: "日本"}, {Server: "y", Tool: "日本"}, {Server: "x", Tool: "\u0301"}},
	{{Server: "kube:prod", Tool: "ns::get"}, {Server: "1password", Tool: "get"}, {Server: "2fa", Tool: "get"}},
	{{Server: "docs", Tool: strings.Repeat("very_long_tool_name_", 10)}, {Server: strings.Repeat("s", 200), Tool: "get"}, {Server: "b", Tool: "get"}},
	{{Server: "a__b", Tool: "x"}, {Server: "c", Tool: "x"}, {Server: "a", Tool: "b__x"}, {Server: "d", Tool: "b__x"}},
	{{Server: "a", Tool: "get.user"}, {Server: "b", Tool: "get_user"}, {Server: "a", Tool: "get.user"}},
	{{Server: "", Tool: "t"}},
	{{Server: "s", Tool: "\xff"}},
}

// encodeKeys writes keys in the form decodeKeys reads.
func encodeKeys(keys []toolname.Key) string {
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k.Server)
		b.WriteByte('\t')
		b.WriteString(k.Tool)
	}
	return b.String()
}

// decodeKeys reads up to 8 keys, one per line, server and tool divided by
// the first tab; a line without a tab is both server and tool.
func decodeKeys(data string) []toolname.Key {
	var keys []toolname.Key
	for line := range strings.SplitSeq(data, "\n") {
		if len(keys) == 8 {
			break
		}
		server, tool, ok := strings.Cut(line, "\t")
		if !ok {
			tool = server
		}
		keys = append(keys, toolname.Key{Server: server, Tool: tool})
	}
	return keys
}

func badKeyField(s string) bool {
	return s == "" || !utf8.ValidString(s)
}

// toolnameChains is the shared table of key-set chains that seeds
// FuzzAssign's chain checks: servers joining and leaving, and tools named
// like other keys' qualified names.
var toolnameChains = [][][]toolname.Key{
	{
		{{Server: "a", Tool: "search"}},
		{{Server: "a", Tool: "search"}, {Server: "b", Tool: "search"}},
		{{Server: "b", Tool: "search"}},
		{{Server: "c", Tool: "search"}, {Server: "a", Tool: "search"}},
	},
	{
		{{Server: "my_server", Tool: "search"}, {Server: "x", Tool: "search"}},
		{{Server: "x", Tool: "search"}},
		{{Server: "x", Tool: "search"}, {Server: "my.server", Tool: "search"}},
	},
	{
		{{Server: "evil", Tool: "a__search"}},
		{{Server: "evil", Tool: "a__search"}, {Server: "a", Tool: "search"}, {Server: "b", Tool: "search"}},
	},
}

// encodeChain writes key sets in the form decodeChain reads.
func encodeChain(sets [][]toolname.Key) string {
	parts := make([]string, len(sets))
	for i, keys := range sets {
		parts[i] = encodeKeys(keys)
	}
	return strings.Join(parts, "\n\n")
}

// decodeChain reads up to 4 key sets divided by empty lines.
func decodeChain(data string) [][]toolname.Key {
	var sets [][]toolname.Key
	for part := range strings.SplitSeq(data, "\n\n") {
		if len(sets) == 4 {
			break
		}
		sets = append(sets, decodeKeys(part))
	}
	return sets
}

func FuzzAssign(f *testing.F) {
	for i, keys := range toolnameKeySets {
		f.Add(encodeKeys(keys), uint8(i), i%2 == 0)
	}
	for i, chain := range toolnameChains {
		f.Add(encodeChain(chain), uint8(i), i%2 == 1)
	}
	f.Fuzz(func(t *testing.T, data string, rot uint8, qualifyAll bool) {
		var opts []toolname.Option
		if qualifyAll {
			opts = append(opts, toolname.WithQualifyAll())
		}
		sets := decodeChain(data)
		for i, p := range toolnameProfiles {
			r := namecases.Rules[i]
			checkOneSet(t, r, p, sets[0], rot, opts)
			checkChain(t, r, p, sets, opts)
		}
	})
}

// checkOneSet checks Assign on one key set: the error for a bad key, the
// invariants of the names, and independence from the order of the keys.
func checkOneSet(t *testing.T, r namecases.Rule, p toolname.Profile, keys []toolname.Key, rot uint8, opts []toolname.Option) {
	t.Helper()
	profile := r.Name
	firstBad := slices.IndexFunc(keys, func(k toolname.Key) bool {
		return badKeyField(k.Server) || badKeyField(k.Tool)
	})
	names, err := toolname.Assign(p, keys, opts...)
	if err != nil {
		var e *toolname.Error
		if !errors.As(err, &e) || !errors.Is(err, toolname.ErrInvalidKey) {
			t.Fatalf("%s: error %v (%T) is not an invalid_key *toolname.Error", profile, err, err)
		}
		if e.Index != firstBad {
			t.Fatalf("%s: error names key %d, first bad key is %d", profile, e.Index, firstBad)
		}
		k := keys[e.Index]
		field := k.Server
		if e.Field == "tool" {
			field = k.Tool
		}
		if e.Input != field || !badKeyField(field) {
			t.Fatalf("%s: error %+v does not describe key %q", profile, e, k)
		}
		return
	}
	if firstBad >= 0 {
		t.Fatalf("%s: Assign accepted bad key %q", profile, keys[firstBad])
	}
	checkAssigned(t, r, p, keys, names)
	rotated := slices.Clone(keys)
	if len(rotated) > 0 {
		r := int(rot) % len(rotated)
		rotated = append(rotated[r:], rotated[:r]...)
	}
	reversed := slices.Clone(keys)
	slices.Reverse(reversed)
	for _, other := range [][]toolname.Key{rotated, reversed} {
		got, err := toolname.Assign(p, other, opts...)
		if err != nil {
			t.Fatalf("%s: reordered keys: %v", profile, err)
		}
		for _, k := range keys {
			a, _ := names.Name(k)
			b, _ := got.Name(k)
			if a != b {
				t.Fatalf("%s: %q is named %q, and %q with the keys reordered", profile, k, a, b)
			}
		}
		if !slices.Equal(names.Fallbacks(), got.Fallbacks()) {
			t.Fatalf("%s: fallbacks differ with the keys reordered", profile)
		}
	}
}

// checkChain assigns the sets one after the other with WithPrevious, and
// checks at every step the invariants, that no key present before and
// after is renamed, that no name ever goes to a second key, and that the
// table survives a JSON round trip.
func checkChain(t *testing.T, r namecases.Rule, p toolname.Profile, sets [][]toolname.Key, opts []toolname.Option) {
	t.Helper()
	profile := r.Name
	var prev *toolname.Table
	everHeld := map[string]toolname.Key{}
	for step, keys := range sets {
		names, err := toolname.Assign(p, keys, append(opts, toolname.WithPrevious(prev))...)
		if err != nil {
			continue // checkOneSet checks the errors
		}
		checkAssigned(t, r, p, keys, names)
		for k, name := range names.All() {
			if old, ok := prev.Name(k); ok && old != name {
				t.Fatalf("%s: step %d renamed %q from %q to %q", profile, step, k, old, name)
			}
			if holder, ok := everHeld[name]; ok && holder != k {
				t.Fatalf("%s: step %d gave %q's old name %q to %q", profile, step, holder, name, k)
			}
			everHeld[name] = k
		}
		data, err := json.Marshal(names)
		if err != nil {
			t.Fatalf("%s: step %d: MarshalJSON: %v", profile, step, err)
		}
		restored := new(toolname.Table)
		if err := json.Unmarshal(data, restored); err != nil {
			t.Fatalf("%s: step %d: UnmarshalJSON of %s: %v", profile, step, data, err)
		}
		if again, _ := json.Marshal(restored); string(again) != string(data) {
			t.Fatalf("%s: step %d: JSON round trip:\n%s\n%s", profile, step, data, again)
		}
		prev = restored
	}
}

// checkAssigned checks the promises Assign makes about names, the result
// for keys under p, whose rule is r.
func checkAssigned(t *testing.T, r namecases.Rule, p toolname.Profile, keys []toolname.Key, names *toolname.Table) {
	t.Helper()
	if err := namecases.CheckNames(names, keys, r.Re, r.MaxLen, toolname.Qualified, p.Valid, toolname.MCP.Valid); err != nil {
		t.Fatalf("%s: %v", r.Name, err)
	}
}

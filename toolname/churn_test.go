package toolname

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// churnServers and churnTools are drawn from by the simulation: shared
// tool names, servers that fold alike, tools with "__" and non-ASCII.
var (
	churnServers = []string{"github", "gitlab", "jira", "my.server", "my_server", "my-server", "a", "evil", "kube:prod", "kube_prod", "1password", "docs", "日本", "a__b"}
	churnTools   = []string{"search", "fetch", "create_issue", "list", "get.user", "get_user", "a__search", "b__x", "café", "cafe", "日本", "x", strings.Repeat("long_tool_name_", 6), "search_" + "euszb6ueho"}
)

// churnEvent is one step of a gateway's life.
type churnEvent struct {
	kind string // join, leave, add, remove
	keys []Key  // the key set after the event
}

// churnEvents returns n events of a seeded random gateway life: servers
// join with 1-4 tools and leave, tools are added and removed.
func churnEvents(seed uint64, n int) []churnEvent {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	present := map[string][]string{} // server -> tools
	events := make([]churnEvent, 0, n)
	pick := func(from []string) string { return from[rng.IntN(len(from))] }
	for len(events) < n {
		var kind string
		servers := slices.Sorted(func(yield func(string) bool) {
			for s := range present {
				if !yield(s) {
					return
				}
			}
		})
		switch op := rng.IntN(4); {
		case op == 0 || len(servers) == 0:
			s := pick(churnServers)
			if _, ok := present[s]; ok {
				continue
			}
			kind = "join"
			for range 1 + rng.IntN(4) {
				if t := pick(churnTools); !slices.Contains(present[s], t) {
					present[s] = append(present[s], t)
				}
			}
		case op == 1:
			kind = "leave"
			delete(present, pick(servers))
		case op == 2:
			s, t := pick(servers), pick(churnTools)
			if slices.Contains(present[s], t) {
				continue
			}
			kind = "add"
			present[s] = append(present[s], t)
		default:
			s := pick(servers)
			if len(present[s]) < 2 {
				continue
			}
			kind = "remove"
			i := rng.IntN(len(present[s]))
			present[s] = slices.Delete(present[s], i, i+1)
		}
		var keys []Key
		for s, tools := range present {
			for _, t := range tools {
				keys = append(keys, Key{s, t})
			}
		}
		events = append(events, churnEvent{kind, keys})
	}
	return events
}

// churnCount is what a chain of assignments did to the names a model holds.
type churnCount struct {
	renamingEvents int // events that renamed at least one key present before and after
	renamed        int // keys renamed, summed over the events
	reusingEvents  int // events that gave some key a name another key held before
	reused         int // names reused, summed over the events
}

func (c churnCount) String() string {
	return fmt.Sprintf("%d events renamed %d keys, %d events reused %d names", c.renamingEvents, c.renamed, c.reusingEvents, c.reused)
}

// countChurn runs assign over the events, each call given the previous
// result, and counts renames and reuses over the whole chain.
func countChurn(t *testing.T, events []churnEvent, assign func(keys []Key, prev *Table) (*Table, error)) churnCount {
	t.Helper()
	var c churnCount
	var prev *Table
	everHeld := map[string]Key{}
	for i, ev := range events {
		n, err := assign(ev.keys, prev)
		if err != nil {
			t.Fatalf("event %d (%s): %v", i, ev.kind, err)
		}
		renamed, reused := 0, 0
		for _, k := range ev.keys {
			name, _ := n.Name(k)
			if old, ok := prev.Name(k); ok && old != name {
				renamed++
			}
			if holder, ok := everHeld[name]; ok && holder != k {
				reused++
			}
			everHeld[name] = k
		}
		if renamed > 0 {
			c.renamingEvents++
			c.renamed += renamed
		}
		if reused > 0 {
			c.reusingEvents++
			c.reused += reused
		}
		prev = n
	}
	return c
}

// TestChurnSimulation runs a seeded gateway life of 400 events under every
// profile and both qualify modes. With WithPrevious no key present before
// and after an event is renamed, and no name ever goes to a second key.
// With WithQualifyAll a key's name does not depend on the other keys, so
// the same holds without WithPrevious.
func TestChurnSimulation(t *testing.T) {
	events := churnEvents(1, 400)
	for _, pr := range profileRules {
		for _, qualify := range []bool{false, true} {
			var opts []Option
			if qualify {
				opts = append(opts, WithQualifyAll())
			}
			t.Run(fmt.Sprintf("%s/qualifyAll=%v", pr.name, qualify), func(t *testing.T) {
				chained := countChurn(t, events, func(keys []Key, prev *Table) (*Table, error) {
					n, err := Assign(pr.profile, keys, append(opts, WithPrevious(prev))...)
					if err == nil {
						checkNames(t, pr.profile, keys, n)
					}
					return n, err
				})
				assert.Equal(t, churnCount{}, chained, "with WithPrevious: %s", chained)

				alone := countChurn(t, events, func(keys []Key, _ *Table) (*Table, error) {
					return Assign(pr.profile, keys, opts...)
				})
				if qualify {
					assert.Equal(t, churnCount{}, alone, "WithQualifyAll alone: %s", alone)
				}
				t.Logf("without WithPrevious: %s", alone)
			})
		}
	}
}

// TestChurnScenarios follows small gateway lives step by step, with
// WithPrevious, and pins every name at every step.
func TestChurnScenarios(t *testing.T) {
	type step struct {
		keys []Key
		want map[Key]string
	}
	var (
		aSearch  = Key{"a", "search"}
		bSearch  = Key{"b", "search"}
		cSearch  = Key{"c", "search"}
		bFetch   = Key{"b", "fetch"}
		dotted   = Key{"my.server", "search"}
		under    = Key{"my_server", "search"}
		evil     = Key{"evil", "a__search"}
		otherKey = Key{"other", "search"}
	)
	tests := []struct {
		name  string
		steps []step
	}{
		{"a server joins with a tool of the same name", []step{
			{[]Key{aSearch}, map[Key]string{aSearch: "search"}},
			{[]Key{aSearch, bSearch}, map[Key]string{aSearch: "search", bSearch: "b__search"}},
		}},
		{"a server leaves", []step{
			{[]Key{aSearch, bSearch, bFetch}, map[Key]string{aSearch: "a__search", bSearch: "b__search", bFetch: "fetch"}},
			{[]Key{bSearch, bFetch}, map[Key]string{bSearch: "b__search", bFetch: "fetch"}},
		}},
		{"a tool is added", []step{
			{[]Key{aSearch, bFetch}, map[Key]string{aSearch: "search", bFetch: "fetch"}},
			{[]Key{aSearch, bFetch, bSearch}, map[Key]string{aSearch: "search", bFetch: "fetch", bSearch: "b__search"}},
		}},
		{"a tool is removed", []step{
			{[]Key{aSearch, bSearch}, map[Key]string{aSearch: "a__search", bSearch: "b__search"}},
			{[]Key{aSearch}, map[Key]string{aSearch: "a__search"}},
		}},
		{"a key leaves and comes back", []step{
			{[]Key{aSearch, bFetch}, map[Key]string{aSearch: "search", bFetch: "fetch"}},
			{[]Key{bFetch}, map[Key]string{bFetch: "fetch"}},
			{[]Key{bFetch, aSearch}, map[Key]string{aSearch: "search", bFetch: "fetch"}},
		}},
		{"a left name is not reused", []step{
			{[]Key{aSearch}, map[Key]string{aSearch: "search"}},
			{[]Key{cSearch}, map[Key]string{cSearch: "c__search"}},
			{[]Key{cSearch, aSearch}, map[Key]string{aSearch: "search", cSearch: "c__search"}},
		}},
		{"servers that fold alike take turns", []step{
			{[]Key{under, otherKey}, map[Key]string{under: "my_server__search", otherKey: "other__search"}},
			{[]Key{otherKey}, map[Key]string{otherKey: "other__search"}},
			{[]Key{otherKey, dotted}, map[Key]string{otherKey: "other__search", dotted: "my_server__search_f7vz3s3yis"}},
		}},
		{"a tool named like a qualified name", []step{
			{[]Key{aSearch, bSearch}, map[Key]string{aSearch: "a__search", bSearch: "b__search"}},
			{[]Key{aSearch, bSearch, evil}, map[Key]string{aSearch: "a__search", bSearch: "b__search", evil: "evil__a__search"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prev *Table
			for i, st := range tt.steps {
				n, err := Assign(OpenAI, st.keys, WithPrevious(prev))
				require.NoError(t, err)
				if diff := cmp.Diff(st.want, namesOf(n, st.keys)); diff != "" {
					t.Fatalf("step %d names (-want +got):\n%s", i, diff)
				}
				prev = n
			}
		})
	}
}

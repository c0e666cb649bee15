package toolname

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hashOf returns k's hash suffix with salt.
func hashOf(k Key, salt uint64) string { return string(appendHash(nil, k, salt)) }

// TestUnmarshalRefusesAnotherKeysName: a name holding "__" loads only as
// the qualified name Assign derives from its own key.
func TestUnmarshalRefusesAnotherKeysName(t *testing.T) {
	long := strings.Repeat("s", 80)
	tests := []struct {
		name                       string
		server, tool, held, reason string
		ok                         bool
	}{
		{"own qualified name", "a", "search", "a__search", "qualified", true},
		{"another server's", "evil", "search", "a__search", "qualified", false},
		{"another tool's", "a", "fetch", "a__search", "qualified", false},
		{"folded", "a.b", "x", "a_b__x", "qualified|folded", true},
		{"unfolded under MCP", "a.b", "x", "a.b__x", "qualified", true},
		{"folded without saying so", "a.b", "x", "a_b__x", "qualified", false},
		{"said folded, is not", "a", "search", "a__search", "qualified|folded", false},
		{"lead added", "1password", "get", "_1password__get", "qualified|folded", true},
		{"own hash", "a", "search", "a__search_" + hashOf(Key{"a", "search"}, 0), "qualified|rehashed", true},
		{"own hash, salted", "a", "search", "a__search_" + hashOf(Key{"a", "search"}, 3), "qualified|rehashed", true},
		{"own hash, salted more than the table's names could", "a", "search", "a__search_" + hashOf(Key{"a", "search"}, 1+saltSlack+1), "qualified|rehashed", false},
		{"salted without saying rehashed", long, "search", long[:44] + "__search_" + hashOf(Key{long, "search"}, 1), "qualified|shortened", false},
		{"another key's hash", "a", "search", "a__search_" + hashOf(Key{"b", "search"}, 0), "qualified|rehashed", false},
		{"own hash, another server's part", "evil", "search", "a__search_" + hashOf(Key{"evil", "search"}, 0), "qualified|rehashed", false},
		{"shortened as Assign does", long, "search", long[:44] + "__search_" + hashOf(Key{long, "search"}, 0), "qualified|shortened", true},
		{"shortened too far", long, "search", long[:3] + "__search_" + hashOf(Key{long, "search"}, 0), "qualified|shortened", false},
		{"shortened, not said", long, "search", long[:44] + "__search_" + hashOf(Key{long, "search"}, 0), "qualified|rehashed", false},
		{"a prefix of a server that is not Assign's cut", "a-evil", "search", "a__search_" + hashOf(Key{"a-evil", "search"}, 0), "qualified|shortened", false},
		{"unreadable tool", "s", "日本", "s__" + hashOf(Key{"s", "日本"}, 0), "qualified|folded|rehashed", true},
		{"unreadable tool given a tool part", "s", "日本", "s_____" + hashOf(Key{"s", "日本"}, 0), "qualified|folded|rehashed", false},
	}
	for _, tt := range tests {
		for _, list := range []string{"names", "retired"} {
			t.Run(tt.name+"/"+list, func(t *testing.T) {
				e, err := json.Marshal(entryJSON{tt.server, tt.tool, tt.held, tt.reason})
				require.NoError(t, err)
				lists := map[string]string{"names": "", "retired": ""}
				lists[list] = string(e)
				data := `{"version":1,"names":[` + lists["names"] + `],"retired":[` + lists["retired"] + `]}`
				err = new(Table).UnmarshalJSON([]byte(data))
				if tt.ok {
					require.NoError(t, err)
					return
				}
				require.ErrorIs(t, err, ErrInvalidTable)
				var ne *Error
				require.ErrorAs(t, err, &ne)
				assert.Equal(t, "name", ne.Field)
				assert.Equal(t, tt.held, ne.Input)
				assert.Equal(t, 0, ne.Index)
			})
		}
	}
}

// TestTamperedTableIsRefused: the tampered state file of the trial, in
// which "evil::search" holds "a__search", is refused, so WithPrevious
// never keeps it.
func TestTamperedTableIsRefused(t *testing.T) {
	n, err := Assign(Portable, []Key{{"a", "search"}, {"evil", "search"}})
	require.NoError(t, err)
	data, err := json.Marshal(n)
	require.NoError(t, err)
	tampered := strings.NewReplacer(`"name":"a__search"`, `"name":"x__search"`, `"name":"evil__search"`, `"name":"a__search"`).Replace(string(data))
	tampered = strings.Replace(tampered, `"name":"x__search"`, `"name":"evil__search"`, 1)
	require.NotEqual(t, string(data), tampered)
	err = new(Table).UnmarshalJSON([]byte(tampered))
	require.ErrorIs(t, err, ErrInvalidTable)
}

// TestUnmarshalAcceptsWhatAssignGives: every table Assign gives loads,
// whatever the profile, MaxLen, options and history, and swapping two
// keys' qualified names never does.
func TestUnmarshalAcceptsWhatAssignGives(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	profiles := []Profile{OpenAI, Anthropic, Gemini, MCP, Portable}
	servers := append(append([]string{}, churnServers...), strings.Repeat("long-server.", 8), "a__", "é", "\u0301")
	tools := append(append([]string{}, churnTools...), strings.Repeat("t", 70), "__", "x_", "\u0301")
	var prev *Table
	for step := range 200 {
		p := profiles[rng.IntN(len(profiles))]
		if rng.IntN(3) == 0 {
			p.MaxLen = minMaxLen + rng.IntN(p.MaxLen-minMaxLen+1)
		}
		var keys []Key
		for range 1 + rng.IntN(12) {
			keys = append(keys, Key{servers[rng.IntN(len(servers))], tools[rng.IntN(len(tools))]})
		}
		var opts []Option
		if rng.IntN(4) == 0 {
			opts = append(opts, WithQualifyAll())
		}
		if rng.IntN(4) == 0 {
			opts = append(opts, WithReserved("search", "x"))
		}
		if rng.IntN(5) > 0 {
			opts = append(opts, WithPrevious(prev))
		}
		n, err := Assign(p, keys, opts...)
		require.NoError(t, err)
		data, err := json.Marshal(n)
		require.NoError(t, err)
		var back Table
		require.NoError(t, back.UnmarshalJSON(data), "step %d: %s", step, data)

		// Swapping two keys' qualified names is refused: a few pairs
		// a step.
		var tj tableJSON
		require.NoError(t, json.Unmarshal(data, &tj))
		var qualified []entryJSON
		for _, e := range append(append([]entryJSON{}, tj.Names...), tj.Retired...) {
			if strings.Contains(e.Name, "__") {
				qualified = append(qualified, e)
			}
		}
		for range min(4, len(qualified)/2) {
			a, b := qualified[rng.IntN(len(qualified))], qualified[rng.IntN(len(qualified))]
			if a.Server == b.Server && a.Tool == b.Tool {
				continue
			}
			swapped := strings.Replace(string(data), fmt.Sprintf(`"name":%q`, a.Name), `"name":"\u0000"`, 1)
			swapped = strings.Replace(swapped, fmt.Sprintf(`"name":%q`, b.Name), fmt.Sprintf(`"name":%q`, a.Name), 1)
			swapped = strings.Replace(swapped, `"name":"\u0000"`, fmt.Sprintf(`"name":%q`, b.Name), 1)
			err := new(Table).UnmarshalJSON([]byte(swapped))
			assert.ErrorIs(t, err, ErrInvalidTable, "step %d: %v and %v swapped %q and %q", step, a, b, a.Name, b.Name)
		}
		prev = n
	}
}

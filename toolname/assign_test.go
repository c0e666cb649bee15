package toolname

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/namecases"
)

var long200 = strings.Repeat("very_long_tool_name_", 10)

// goldenKeys exercises every rule of the naming scheme at once.
var goldenKeys = []Key{
	{"github", "create_issue"},
	{"github", "search"},
	{"gitlab", "search"},
	{"a.b", "fetch"},
	{"a_b", "fetch"},
	{"a-b", "fetch"},
	{"x", "café"},
	{"y", "cafe"},
	{"x", "ｆｏｏ"},
	{"x", "日本"},
	{"kube:prod", "ns::get"},
	{"docs", long200},
	{"1password", "get"},
	{"2fa", "get"},
	{"srv", "2fa-verify"},
}

// TestAssignGolden pins exact names: a change here changes the names that
// deployed gateways hand to models, which the package promises not to do.
func TestAssignGolden(t *testing.T) {
	tests := []struct {
		name    string
		profile Profile
		want    map[Key]string
	}{
		{"OpenAI", OpenAI, map[Key]string{
			{"github", "create_issue"}: "create_issue",
			{"github", "search"}:       "github__search",
			{"gitlab", "search"}:       "gitlab__search",
			{"a.b", "fetch"}:           "a_b__fetch_icivfcoxz6",
			{"a_b", "fetch"}:           "a_b__fetch",
			{"a-b", "fetch"}:           "a-b__fetch",
			{"x", "café"}:              "x__cafe",
			{"y", "cafe"}:              "cafe",
			{"x", "ｆｏｏ"}:               "x__foo",
			{"x", "日本"}:                "x__dfmsiyjaa6",
			{"kube:prod", "ns::get"}:   "kube_prod__ns__get",
			{"docs", long200}:          "docs__very_long_tool_name_very_long_tool_name_very_lo_eif7pxiyar",
			{"1password", "get"}:       "1password__get",
			{"2fa", "get"}:             "2fa__get",
			{"srv", "2fa-verify"}:      "2fa-verify",
		}},
		{"Gemini", Gemini, map[Key]string{
			{"github", "create_issue"}: "create_issue",
			{"github", "search"}:       "github__search",
			{"gitlab", "search"}:       "gitlab__search",
			{"a.b", "fetch"}:           "a.b__fetch",
			{"a_b", "fetch"}:           "a_b__fetch",
			{"a-b", "fetch"}:           "a-b__fetch",
			{"x", "café"}:              "x__cafe",
			{"y", "cafe"}:              "cafe",
			{"x", "ｆｏｏ"}:               "x__foo",
			{"x", "日本"}:                "x__dfmsiyjaa6",
			{"kube:prod", "ns::get"}:   "kube_prod__ns__get",
			{"docs", long200}:          "docs__very_long_tool_name_very_long_tool_name_very_l_eif7pxiyar",
			{"1password", "get"}:       "_1password__get",
			{"2fa", "get"}:             "_2fa__get",
			{"srv", "2fa-verify"}:      "srv__2fa-verify",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Assign(tt.profile, goldenKeys)
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, namesOf(n, goldenKeys)); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAssignFallbacks(t *testing.T) {
	n, err := Assign(OpenAI, goldenKeys)
	require.NoError(t, err)
	want := []Fallback{
		{Key{"1password", "get"}, "1password__get", Qualified},
		{Key{"2fa", "get"}, "2fa__get", Qualified},
		{Key{"a-b", "fetch"}, "a-b__fetch", Qualified},
		{Key{"a_b", "fetch"}, "a_b__fetch", Qualified},
		{Key{"a.b", "fetch"}, "a_b__fetch_icivfcoxz6", Qualified | Folded | Rehashed},
		{Key{"docs", long200}, "docs__very_long_tool_name_very_long_tool_name_very_lo_eif7pxiyar", Qualified | Shortened},
		{Key{"github", "search"}, "github__search", Qualified},
		{Key{"gitlab", "search"}, "gitlab__search", Qualified},
		{Key{"kube:prod", "ns::get"}, "kube_prod__ns__get", Qualified | Folded},
		{Key{"x", "café"}, "x__cafe", Qualified | Folded},
		{Key{"x", "日本"}, "x__dfmsiyjaa6", Qualified | Folded | Rehashed},
		{Key{"x", "ｆｏｏ"}, "x__foo", Qualified | Folded},
	}
	if diff := cmp.Diff(want, n.Fallbacks()); diff != "" {
		t.Errorf("Fallbacks (-want +got):\n%s", diff)
	}
}

func TestAssignCases(t *testing.T) {
	type row struct {
		key    Key
		name   string
		reason Reason
	}
	tests := []struct {
		name    string
		profile Profile
		keys    []Key
		want    []row
	}{
		{
			name:    "unique valid names are kept",
			profile: OpenAI,
			keys:    []Key{{"github", "create_issue"}, {"jira", "create-ticket"}},
			want: []row{
				{Key{"github", "create_issue"}, "create_issue", 0},
				{Key{"jira", "create-ticket"}, "create-ticket", 0},
			},
		},
		{
			name:    "same tool on three servers",
			profile: Portable,
			keys:    []Key{{"s1", "search"}, {"s2", "search"}, {"s3", "search"}, {"s3", "other"}},
			want: []row{
				{Key{"s1", "search"}, "s1__search", Qualified},
				{Key{"s2", "search"}, "s2__search", Qualified},
				{Key{"s3", "other"}, "other", 0},
				{Key{"s3", "search"}, "s3__search", Qualified},
			},
		},
		{
			name:    "servers that fold alike",
			profile: Portable,
			keys:    []Key{{"a.b", "search"}, {"a_b", "search"}, {"a-b", "search"}},
			want: []row{
				{Key{"a-b", "search"}, "a-b__search", Qualified},
				{Key{"a.b", "search"}, "a_b__search_rofblegcqs", Qualified | Folded | Rehashed},
				{Key{"a_b", "search"}, "a_b__search", Qualified},
			},
		},
		{
			name:    "servers that fold alike, none unfolded",
			profile: Portable,
			keys:    []Key{{"a.b", "search"}, {"a:b", "search"}},
			want: []row{
				{Key{"a.b", "search"}, "a_b__search_rofblegcqs", Qualified | Folded | Rehashed},
				{Key{"a:b", "search"}, "a_b__search_qbvqcizh2b", Qualified | Folded | Rehashed},
			},
		},
		{
			name:    "servers and tools that join alike",
			profile: OpenAI,
			keys:    []Key{{"a__b", "x"}, {"c", "x"}, {"a", "b__x"}, {"d", "b__x"}},
			want: []row{
				{Key{"a", "b__x"}, "a__b__x_ksjkdrb5v4", Qualified | Rehashed},
				{Key{"a__b", "x"}, "a__b__x_gda5xpaj56", Qualified | Rehashed},
				{Key{"c", "x"}, "c__x", Qualified},
				{Key{"d", "b__x"}, "d__b__x", Qualified},
			},
		},
		{
			name:    "200-character tool",
			profile: OpenAI,
			keys:    []Key{{"docs", long200}},
			want: []row{
				{Key{"docs", long200}, "docs__very_long_tool_name_very_long_tool_name_very_lo_eif7pxiyar", Qualified | Shortened},
			},
		},
		{
			name:    "200-character server on a shared tool",
			profile: Portable,
			keys:    []Key{{long200, "get"}, {"b", "get"}},
			want: []row{
				{Key{"b", "get"}, "b__get", Qualified},
				{Key{long200, "get"}, "very_long_tool_name_very_long_tool_name_very_lo__get_deqwinladp", Qualified | Shortened},
			},
		},
		{
			name:    "folding",
			profile: OpenAI,
			keys: []Key{
				{"s", "café"}, {"s", "ｆｕｌｌ"}, {"s", "ﬁle"}, {"s", "naïve résumé"},
				{"s", "Straße"}, {"s", "a/b c"},
			},
			want: []row{
				// A tool that must be folded is qualified: a bare name is
				// only ever a key's own tool name.
				{Key{"s", "Straße"}, "s__Stra_e", Qualified | Folded},
				{Key{"s", "a/b c"}, "s__a_b_c", Qualified | Folded},
				{Key{"s", "café"}, "s__cafe", Qualified | Folded},
				{Key{"s", "naïve résumé"}, "s__naive_resume", Qualified | Folded},
				{Key{"s", "ﬁle"}, "s__file", Qualified | Folded},
				{Key{"s", "ｆｕｌｌ"}, "s__full", Qualified | Folded},
			},
		},
		{
			name:    "names that fold to nothing",
			profile: OpenAI,
			keys:    []Key{{"s", "日本"}, {"s", "中国"}, {"s", "\u0301"}, {"t", "日本"}, {"日本", "ツール"}},
			want: []row{
				{Key{"s", "\u0301"}, "s__33pri4eswt", Qualified | Folded | Rehashed},
				{Key{"s", "中国"}, "s__wbsul4vx6x", Qualified | Folded | Rehashed},
				{Key{"s", "日本"}, "s__mbidziu7gq", Qualified | Folded | Rehashed},
				{Key{"t", "日本"}, "t__zkqelm6gcy", Qualified | Folded | Rehashed},
				{Key{"日本", "ツール"}, "____4sai6ax2tx", Qualified | Folded | Rehashed},
			},
		},
		{
			name:    "leading character",
			profile: Gemini,
			keys:    []Key{{"s", "2fa"}, {"s", "-x"}, {"s", ".hidden"}},
			want: []row{
				{Key{"s", "-x"}, "s__-x", Qualified},
				{Key{"s", ".hidden"}, "s__.hidden", Qualified},
				{Key{"s", "2fa"}, "s__2fa", Qualified},
			},
		},
		{
			name:    "folded name equal to a bare name",
			profile: OpenAI,
			keys:    []Key{{"a", "get.user"}, {"b", "get_user"}},
			want: []row{
				{Key{"a", "get.user"}, "a__get_user", Qualified | Folded},
				{Key{"b", "get_user"}, "get_user", 0},
			},
		},
		{
			name:    "bare name that looks like a hashed one",
			profile: OpenAI,
			keys:    []Key{{"x", "café"}, {"y", "cafe"}, {"z", "cafe_euszb6ueho"}},
			want: []row{
				{Key{"x", "café"}, "x__cafe", Qualified | Folded},
				{Key{"y", "cafe"}, "cafe", 0},
				{Key{"z", "cafe_euszb6ueho"}, "cafe_euszb6ueho", 0},
			},
		},
		{
			name:    "smallest MaxLen",
			profile: Profile{MaxLen: 13},
			keys:    []Key{{"s", "abcdefghijk"}, {"s", "abcdefghijklmn"}},
			want: []row{
				{Key{"s", "abcdefghijk"}, "abcdefghijk", 0},
				{Key{"s", "abcdefghijklmn"}, "s__f7hkuvjyjm", Qualified | Shortened},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Assign(tt.profile, tt.keys)
			require.NoError(t, err)
			var got []row
			for _, k := range tt.keys {
				name, ok := n.Name(k)
				require.True(t, ok, "%q has no name", k)
				var reason Reason
				for _, f := range n.Fallbacks() {
					if f.Key == k {
						reason = f.Reason
					}
				}
				got = append(got, row{k, name, reason})
			}
			slices.SortFunc(got, func(a, b row) int { return compareKeys(a.key, b.key) })
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(row{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			checkNames(t, tt.profile, tt.keys, n)
		})
	}
}

// keySets are the key sets every profile must name correctly.
func keySets() []struct {
	name string
	keys []Key
} {
	return []struct {
		name string
		keys []Key
	}{
		{"golden", goldenKeys},
		{"same tool on 100 servers", sameTool(100)},
		{"10000 tools on 1000 servers", manyKeys(1000, 10)},
		{"random", randomKeys(rand.New(rand.NewPCG(1, 2)), 500)},
		{"empty", nil},
	}
}

func TestAssignInvariants(t *testing.T) {
	for _, ks := range keySets() {
		for _, pr := range profileRules {
			t.Run(ks.name+"/"+pr.name, func(t *testing.T) {
				n, err := Assign(pr.profile, ks.keys)
				require.NoError(t, err)
				checkNames(t, pr.profile, ks.keys, n)
			})
		}
	}
}

func TestAssignLowerMaxLen(t *testing.T) {
	for _, maxLen := range []int{13, 14, 20, 32} {
		for _, pr := range profileRules {
			t.Run(fmt.Sprintf("%s/%d", pr.name, maxLen), func(t *testing.T) {
				p := pr.profile
				p.MaxLen = maxLen
				keys := randomKeys(rand.New(rand.NewPCG(3, uint64(maxLen))), 300)
				n, err := Assign(p, keys)
				require.NoError(t, err)
				checkNames(t, p, keys, n)
			})
		}
	}
}

func TestAssignOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, ks := range keySets() {
		for _, pr := range profileRules {
			t.Run(ks.name+"/"+pr.name, func(t *testing.T) {
				want, err := Assign(pr.profile, ks.keys)
				require.NoError(t, err)
				for range 3 {
					shuffled := slices.Clone(ks.keys)
					rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
					got, err := Assign(pr.profile, shuffled)
					require.NoError(t, err)
					// cmp.Diff is slow on 10,000 entries: compare first.
					wantNames, gotNames := namesOf(want, ks.keys), namesOf(got, ks.keys)
					if !maps.Equal(wantNames, gotNames) {
						t.Fatalf("names (-want +got):\n%s", cmp.Diff(wantNames, gotNames))
					}
					if !slices.Equal(want.Fallbacks(), got.Fallbacks()) {
						t.Fatalf("fallbacks (-want +got):\n%s", cmp.Diff(want.Fallbacks(), got.Fallbacks()))
					}
				}
			})
		}
	}
}

func TestAssignDuplicates(t *testing.T) {
	keys := []Key{{"a", "get"}, {"b", "get"}, {"a", "get"}, {"c", "put"}, {"c", "put"}, {"a", "get"}}
	n, err := Assign(OpenAI, keys)
	require.NoError(t, err)
	assert.Equal(t, 3, n.Len())
	want := map[Key]string{{"a", "get"}: "a__get", {"b", "get"}: "b__get", {"c", "put"}: "put"}
	if diff := cmp.Diff(want, namesOf(n, keys)); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	assert.Len(t, n.Fallbacks(), 2)
	checkNames(t, OpenAI, keys, n)
}

func TestAssignErrors(t *testing.T) {
	tests := []struct {
		name   string
		keys   []Key
		index  int
		field  string
		input  string
		offset int
	}{
		{"empty server", []Key{{"a", "b"}, {"", "t"}}, 1, "server", "", -1},
		{"empty tool", []Key{{"s", ""}}, 0, "tool", "", -1},
		{"both empty", []Key{{}}, 0, "server", "", -1},
		{"invalid server", []Key{{"ok", "ok"}, {"ok", "ok"}, {"a\xffb", "t"}}, 2, "server", "a\xffb", 1},
		{"invalid tool", []Key{{"s", "caf\xc3"}}, 0, "tool", "caf\xc3", 3},
		{"surrogate", []Key{{"s", "\xed\xa0\x80"}}, 0, "tool", "\xed\xa0\x80", 0},
		{"first bad key wins", []Key{{"s", "\x80"}, {"", "t"}}, 0, "tool", "\x80", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Assign(OpenAI, tt.keys)
			require.ErrorIs(t, err, ErrInvalidKey)
			assert.Nil(t, n)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, CodeInvalidKey, e.Code)
			assert.Equal(t, tt.index, e.Index)
			assert.Equal(t, tt.field, e.Field)
			assert.Equal(t, tt.input, e.Input)
			assert.Equal(t, tt.offset, e.Offset)
		})
	}
}

func TestAssignInvalidProfile(t *testing.T) {
	for _, tt := range []struct {
		profile Profile
		maxLen  int
	}{
		{OpenAI, -1}, {Portable, math.MinInt}, {OpenAI, 1}, {OpenAI, 5}, {OpenAI, 10}, {OpenAI, 65}, {Gemini, 64}, {Profile{}, 64}, {MCP, 129}, {Anthropic, 1 << 40},
	} {
		maxLen := tt.maxLen
		t.Run(fmt.Sprint(maxLen), func(t *testing.T) {
			p := tt.profile
			p.MaxLen = maxLen
			n, err := Assign(p, []Key{{"s", "t"}})
			require.ErrorIs(t, err, ErrInvalidProfile)
			assert.Nil(t, n)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "MaxLen", e.Field)
			assert.Equal(t, fmt.Sprint(maxLen), e.Input)
		})
	}
}

func TestWithLogger(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	n, err := Assign(OpenAI, goldenKeys, WithLogger(logger), Option{}, WithLogger(nil), WithLogger(logger))
	require.NoError(t, err)

	type record struct {
		Level, Msg, Server, Tool, Name, Reason string
	}
	var got []record
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var r record
		require.NoError(t, dec.Decode(&r))
		got = append(got, r)
	}
	var want []record
	for _, f := range n.Fallbacks() {
		want = append(want, record{"INFO", "toolname: fallback name", f.Key.Server, f.Key.Tool, f.Name, f.Reason.String()})
	}
	require.NotEmpty(t, want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("log records (-want +got):\n%s", diff)
	}
}

func TestWithNilLogger(t *testing.T) {
	n, err := Assign(OpenAI, goldenKeys, WithLogger(nil))
	require.NoError(t, err)
	assert.Equal(t, len(goldenKeys), n.Len())
}

func TestReasonString(t *testing.T) {
	tests := []struct {
		reason Reason
		want   string
	}{
		{0, "none"},
		{Qualified, "qualified"},
		{Qualified | Shortened, "qualified|shortened"},
		{Qualified | Folded | Shortened | Rehashed, "qualified|folded|shortened|rehashed"},
		{Rehashed | 0x20, "rehashed|0x20"},
		{0x80, "0x80"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.reason.String())
		})
	}
}

func TestNilNames(t *testing.T) {
	var n *Names
	name, ok := n.Name(Key{"s", "t"})
	assert.False(t, ok)
	assert.Empty(t, name)
	k, ok := n.Resolve("t")
	assert.False(t, ok)
	assert.Equal(t, Key{}, k)
	assert.Zero(t, n.Len())
	assert.Nil(t, n.Fallbacks())
}

func TestResolveUnknown(t *testing.T) {
	n, err := Assign(OpenAI, goldenKeys)
	require.NoError(t, err)
	for _, name := range []string{"", "github::search", "github__search_x", "Github__search", "a.b__fetch"} {
		t.Run(name, func(t *testing.T) {
			_, ok := n.Resolve(name)
			assert.False(t, ok)
		})
	}
}

func TestFallbacksIsACopy(t *testing.T) {
	n, err := Assign(OpenAI, goldenKeys)
	require.NoError(t, err)
	f := n.Fallbacks()
	f[0].Name = "changed"
	assert.NotEqual(t, "changed", n.Fallbacks()[0].Name)
}

func TestNamesAllocs(t *testing.T) {
	keys := manyKeys(100, 10)
	prev, err := Assign(OpenAI, keys[100:])
	require.NoError(t, err)
	n, err := Assign(OpenAI, keys, WithPrevious(prev))
	require.NoError(t, err)
	k := keys[len(keys)/2]
	name, _ := n.Name(k)
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		if got, ok := n.Resolve(name); !ok || got != k {
			t.Fatal("Resolve failed")
		}
	}), "Resolve")
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		if got, ok := n.Name(k); !ok || got != name {
			t.Fatal("Name failed")
		}
	}), "Name")
}

// checkNames verifies every promise Assign makes about n, the result for
// keys under p, against the independent regexp of p's rule.
func checkNames(t *testing.T, p Profile, keys []Key, n *Names) {
	t.Helper()
	re, maxLen := referenceRule(t, p)
	require.NoError(t, namecases.CheckNames(n, keys, re, maxLen, Qualified, p.Valid, MCP.Valid))
	for k, name := range n.All() {
		checkOwnQualifiedName(t, p, k, name)
	}
}

// checkOwnQualifiedName checks that no key takes another's qualified name:
// what comes before the first "__" of a name is the start of the key's own
// folded server.
func checkOwnQualifiedName(t *testing.T, p Profile, k Key, name string) {
	t.Helper()
	i := strings.Index(name, "__")
	if i < 0 {
		return
	}
	r, _ := p.effective()
	server := r.appendFolded(nil, k.Server)
	if r.lead && (len(server) == 0 || !isLead(server[0])) {
		server = append([]byte{'_'}, server...)
	}
	require.True(t, strings.HasPrefix(string(server), name[:i]), "%q is named %q, which is not its own server's", k, name)
}

func referenceRule(t *testing.T, p Profile) (re *regexp.Regexp, maxLen int) {
	t.Helper()
	for _, pr := range profileRules {
		if pr.profile.rule == p.rule || pr.profile.rule == nil && p.rule == portableRule {
			maxLen = pr.maxLen
			if p.MaxLen > 0 {
				maxLen = p.MaxLen
			}
			return pr.re, maxLen
		}
	}
	t.Fatal("no reference rule")
	return nil, 0
}

func namesOf(n *Names, keys []Key) map[Key]string {
	m := map[Key]string{}
	for _, k := range keys {
		name, ok := n.Name(k)
		if !ok {
			name = "<none>"
		}
		m[k] = name
	}
	return m
}

func sameTool(servers int) []Key {
	keys := make([]Key, servers)
	for i := range keys {
		keys[i] = Key{fmt.Sprintf("server-%d", i), "search"}
	}
	return keys
}

// manyKeys returns toolsPerServer tools on each of servers servers, shaped
// like a large gateway: some tools every server has, dotted and long tool
// names, server names with dots and colons.
func manyKeys(servers, toolsPerServer int) []Key {
	keys := make([]Key, 0, servers*toolsPerServer)
	for i := range servers {
		var server string
		switch i % 4 {
		case 0:
			server = fmt.Sprintf("server-%d", i)
		case 1:
			server = fmt.Sprintf("team.%d.internal", i)
		case 2:
			server = fmt.Sprintf("kube:prod-%d", i)
		default:
			server = fmt.Sprintf("svc_%d", i)
		}
		for j := range toolsPerServer {
			var tool string
			switch j {
			case 0:
				tool = "search"
			case 1:
				tool = "fetch"
			case 2:
				tool = "list_items"
			case 3:
				tool = fmt.Sprintf("admin.tools.list%d", i)
			case 4:
				tool = fmt.Sprintf("generate_a_rather_long_report_about_the_state_of_item_number_%d", i)
			case 5:
				tool = fmt.Sprintf("résumé_%d", i)
			default:
				tool = fmt.Sprintf("op_%d_%d", i, j)
			}
			keys = append(keys, Key{server, tool})
		}
	}
	return keys
}

// randomKeys draws keys from a small alphabet that makes collisions,
// folding and overlong names likely.
func randomKeys(rng *rand.Rand, n int) []Key {
	parts := []string{"a", "b", "_", "-", ".", ":", "::", "__", "é", "ｆ", "日", " ", "%", "1", "x\u0301", strings.Repeat("long", 9)}
	word := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		return b.String()
	}
	keys := make([]Key, n)
	for i := range keys {
		keys[i] = Key{word(), word()}
	}
	return keys
}

var (
	sinkNames *Names
	sinkKey   Key
	sinkOK    bool
)

func BenchmarkAssign10k(b *testing.B) {
	keys := manyKeys(1000, 10)
	for _, pr := range profileRules[:5] {
		b.Run(pr.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n, err := Assign(pr.profile, keys)
				if err != nil {
					b.Fatal(err)
				}
				sinkNames = n
			}
		})
	}
	// The baseline does the least any assigner must: sort the keys and
	// fill the two lookup tables.
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sorted := slices.Clone(keys)
			slices.SortFunc(sorted, compareKeys)
			byKey := make(map[Key]string, len(sorted))
			byName := make(map[string]Key, len(sorted))
			for _, k := range sorted {
				name := k.Server + "__" + k.Tool
				byKey[k] = name
				byName[name] = k
			}
			sinkOK = len(byKey) == len(byName)
		}
	})
}

// BenchmarkAssignPrevious is a large gateway's common event: one server
// with 10 tools joins 1,000 servers with 10,000 tools, and the table is
// re-assigned with WithPrevious.
func BenchmarkAssignPrevious(b *testing.B) {
	keys := manyKeys(1000, 10)
	joined := append(slices.Clone(keys), manyKeys(1001, 10)[10000:]...)
	for _, pr := range profileRules[:5] {
		prev, err := Assign(pr.profile, keys)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(pr.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n, err := Assign(pr.profile, joined, WithPrevious(prev))
				if err != nil {
					b.Fatal(err)
				}
				sinkNames = n
			}
		})
	}
}

func BenchmarkResolve(b *testing.B) {
	keys := manyKeys(1000, 10)
	n, err := Assign(OpenAI, keys)
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i], _ = n.Name(k)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkKey, sinkOK = n.Resolve(names[i%len(names)])
		i++
	}
}

func BenchmarkName(b *testing.B) {
	keys := manyKeys(1000, 10)
	n, err := Assign(OpenAI, keys)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkString, sinkOK = n.Name(keys[i%len(keys)])
		i++
	}
}

// TestShortenedNamesKeepTheTool: a name shortened to fit keeps the "__"
// and the tool's own folded name whole whenever the limit leaves it room
// beside 8 bytes of server, the server part giving way first.
func TestShortenedNamesKeepTheTool(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 300 {
		server := strings.Repeat("s", 1+rng.IntN(120))
		tool := strings.Repeat("t", 1+rng.IntN(70))
		for _, p := range []Profile{OpenAI, Portable, {MaxLen: 32}, {MaxLen: 20}} {
			names, err := Assign(p, []Key{{server, tool}, {"other", tool}})
			require.NoError(t, err)
			name, _ := names.Name(Key{server, tool})
			require.Contains(t, name, "__")
			maxLen := p.MaxLen
			if maxLen == 0 {
				maxLen = Portable.MaxLen
			}
			room := maxLen - len("__") - len("_") - hashLen
			switch {
			case len(server)+len(tool)+len("__") <= maxLen:
				assert.Equal(t, server+"__"+tool, name)
			case len(tool)+min(len(server), minKeptServer) <= room:
				assert.Contains(t, name, "__"+tool+"_", "the tool stays whole in %q", name)
				assert.True(t, strings.HasPrefix(name, server[:min(len(server), minKeptServer)]), name)
			default:
				assert.True(t, strings.HasPrefix(name, server[:min(len(server), minKeptServer, room-1)]+"__"), name)
			}
		}
	}
}

// BenchmarkAssignLongChain measures a one-key change of a gateway's table
// on a chain that has retired 1,000,000 names, beside the same change on a
// chain with no history: the cost follows the live keys and the change,
// not the history.
func BenchmarkAssignLongChain(b *testing.B) {
	live := manyKeys(100, 10) // 1,000 live tools
	for _, history := range []int{0, 1_000_000} {
		b.Run(fmt.Sprintf("retired=%d", history), func(b *testing.B) {
			var cur *Names
			if history > 0 {
				gone := manyKeys(history/10, 10)
				for i := range gone {
					gone[i].Server = "gone-" + gone[i].Server
				}
				old, err := Assign(Portable, gone)
				require.NoError(b, err)
				cur = old
			}
			cur, err := Assign(Portable, live, WithPrevious(cur))
			require.NoError(b, err)
			require.GreaterOrEqual(b, len(cur.retiredNames()), history)
			extra := Key{"joiner", "tool"}
			// Once per chain, outside the measure: the first table after
			// the history was retired writes it into the shared store, and
			// the first key that comes in indexes it by key.
			cur, err = Assign(Portable, append(slices.Clip(live), Key{"warm", "up"}), WithPrevious(cur))
			require.NoError(b, err)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				keys := live
				if i%2 == 0 {
					keys = append(slices.Clip(live), extra)
				}
				i++
				if cur, err = Assign(Portable, keys, WithPrevious(cur)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// retiredNames returns the names n's chain has retired.
func (n *Names) retiredNames() []string {
	var out []string
	n.retiredAll(func(name string, _ named) { out = append(out, name) })
	return out
}

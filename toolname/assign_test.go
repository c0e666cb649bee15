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

// goldenNames pins exact names for keys that exercise every rule of the
// naming scheme at once: the name under OpenAI with the reason it is a
// fallback, and the name under Gemini. A change here changes the names
// that deployed gateways hand to models, which the package promises not
// to do.
var goldenNames = []struct {
	key    Key
	openAI string
	reason Reason // why the OpenAI name is a fallback, or 0
	gemini string
}{
	{Key{"github", "create_issue"}, "create_issue", 0, "create_issue"},
	{Key{"github", "search"}, "github__search", Qualified, "github__search"},
	{Key{"gitlab", "search"}, "gitlab__search", Qualified, "gitlab__search"},
	{Key{"a.b", "fetch"}, "a_b__fetch_icivfcoxz6", Qualified | Folded | Rehashed, "a.b__fetch"},
	{Key{"a_b", "fetch"}, "a_b__fetch", Qualified, "a_b__fetch"},
	{Key{"a-b", "fetch"}, "a-b__fetch", Qualified, "a-b__fetch"},
	{Key{"x", "café"}, "x__cafe", Qualified | Folded, "x__cafe"},
	{Key{"y", "cafe"}, "cafe", 0, "cafe"},
	{Key{"x", "ｆｏｏ"}, "x__foo", Qualified | Folded, "x__foo"},
	{Key{"x", "日本"}, "x__dfmsiyjaa6", Qualified | Folded | Rehashed, "x__dfmsiyjaa6"},
	{Key{"kube:prod", "ns::get"}, "kube_prod__ns__get", Qualified | Folded, "kube_prod__ns__get"},
	{Key{"docs", long200}, "docs__very_long_tool_name_very_long_tool_name_very_lo_eif7pxiyar", Qualified | Shortened,
		"docs__very_long_tool_name_very_long_tool_name_very_l_eif7pxiyar"},
	{Key{"1password", "get"}, "1password__get", Qualified, "_1password__get"},
	{Key{"2fa", "get"}, "2fa__get", Qualified, "_2fa__get"},
	{Key{"srv", "2fa-verify"}, "2fa-verify", 0, "srv__2fa-verify"},
}

// goldenKeys are the keys of goldenNames, in its order.
var goldenKeys = func() []Key {
	keys := make([]Key, len(goldenNames))
	for i, g := range goldenNames {
		keys[i] = g.key
	}
	return keys
}()

// TestAssignGolden checks the names of goldenNames under each profile,
// and under OpenAI its fallbacks: every name that is not a bare tool
// name, sorted by name, with its reason.
func TestAssignGolden(t *testing.T) {
	for _, p := range []struct {
		name    string
		profile Profile
		want    func(i int) string
	}{
		{"OpenAI", OpenAI, func(i int) string { return goldenNames[i].openAI }},
		{"Gemini", Gemini, func(i int) string { return goldenNames[i].gemini }},
	} {
		t.Run(p.name, func(t *testing.T) {
			n, err := Assign(p.profile, goldenKeys)
			require.NoError(t, err)
			want := map[Key]string{}
			for i, k := range goldenKeys {
				want[k] = p.want(i)
			}
			if diff := cmp.Diff(want, namesOf(n, goldenKeys)); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("OpenAI fallbacks", func(t *testing.T) {
		n, err := Assign(OpenAI, goldenKeys)
		require.NoError(t, err)
		var want []Fallback
		for _, g := range goldenNames {
			if g.reason != 0 {
				want = append(want, Fallback{g.key, g.openAI, g.reason})
			}
		}
		slices.SortFunc(want, func(a, b Fallback) int { return strings.Compare(a.Name, b.Name) })
		if diff := cmp.Diff(want, n.Fallbacks()); diff != "" {
			t.Errorf("Fallbacks (-want +got):\n%s", diff)
		}
	})
}

// TestAssignCases pins the name and the reason of each key of small key
// sets, each about one rule. The keys are passed in the order of the rows;
// each key is named once, however often it is given.
func TestAssignCases(t *testing.T) {
	type row struct {
		key    Key
		name   string
		reason Reason
	}
	tests := []struct {
		name    string
		profile Profile
		rows    []row // the keys given, in order, with the name and reason of each
	}{
		{"unique valid names are kept", OpenAI, []row{
			{Key{"github", "create_issue"}, "create_issue", 0},
			{Key{"jira", "create-ticket"}, "create-ticket", 0},
		}},
		{"same tool on three servers", Portable, []row{
			{Key{"s1", "search"}, "s1__search", Qualified},
			{Key{"s2", "search"}, "s2__search", Qualified},
			{Key{"s3", "search"}, "s3__search", Qualified},
			{Key{"s3", "other"}, "other", 0},
		}},
		{"servers that fold alike", Portable, []row{
			{Key{"a.b", "search"}, "a_b__search_rofblegcqs", Qualified | Folded | Rehashed},
			{Key{"a_b", "search"}, "a_b__search", Qualified},
			{Key{"a-b", "search"}, "a-b__search", Qualified},
		}},
		{"servers that fold alike, none unfolded", Portable, []row{
			{Key{"a.b", "search"}, "a_b__search_rofblegcqs", Qualified | Folded | Rehashed},
			{Key{"a:b", "search"}, "a_b__search_qbvqcizh2b", Qualified | Folded | Rehashed},
		}},
		{"servers and tools that join alike", OpenAI, []row{
			{Key{"a__b", "x"}, "a__b__x_gda5xpaj56", Qualified | Rehashed},
			{Key{"c", "x"}, "c__x", Qualified},
			{Key{"a", "b__x"}, "a__b__x_ksjkdrb5v4", Qualified | Rehashed},
			{Key{"d", "b__x"}, "d__b__x", Qualified},
		}},
		{"200-character tool", OpenAI, []row{
			{Key{"docs", long200}, "docs__very_long_tool_name_very_long_tool_name_very_lo_eif7pxiyar", Qualified | Shortened},
		}},
		{"200-character server on a shared tool", Portable, []row{
			{Key{long200, "get"}, "very_long_tool_name_very_long_tool_name_very_lo__get_deqwinladp", Qualified | Shortened},
			{Key{"b", "get"}, "b__get", Qualified},
		}},
		// A tool that must be folded is qualified: a bare name is only
		// ever a key's own tool name.
		{"folding", OpenAI, []row{
			{Key{"s", "café"}, "s__cafe", Qualified | Folded},
			{Key{"s", "ｆｕｌｌ"}, "s__full", Qualified | Folded},
			{Key{"s", "ﬁle"}, "s__file", Qualified | Folded},
			{Key{"s", "naïve résumé"}, "s__naive_resume", Qualified | Folded},
			{Key{"s", "Straße"}, "s__Stra_e", Qualified | Folded},
			{Key{"s", "a/b c"}, "s__a_b_c", Qualified | Folded},
		}},
		{"names that fold to nothing", OpenAI, []row{
			{Key{"s", "日本"}, "s__mbidziu7gq", Qualified | Folded | Rehashed},
			{Key{"s", "中国"}, "s__wbsul4vx6x", Qualified | Folded | Rehashed},
			{Key{"s", "\u0301"}, "s__33pri4eswt", Qualified | Folded | Rehashed},
			{Key{"t", "日本"}, "t__zkqelm6gcy", Qualified | Folded | Rehashed},
			{Key{"日本", "ツール"}, "____4sai6ax2tx", Qualified | Folded | Rehashed},
		}},
		{"leading character", Gemini, []row{
			{Key{"s", "2fa"}, "s__2fa", Qualified},
			{Key{"s", "-x"}, "s__-x", Qualified},
			{Key{"s", ".hidden"}, "s__.hidden", Qualified},
		}},
		{"folded name equal to a bare name", OpenAI, []row{
			{Key{"a", "get.user"}, "a__get_user", Qualified | Folded},
			{Key{"b", "get_user"}, "get_user", 0},
		}},
		{"bare name that looks like a hashed one", OpenAI, []row{
			{Key{"x", "café"}, "x__cafe", Qualified | Folded},
			{Key{"y", "cafe"}, "cafe", 0},
			{Key{"z", "cafe_euszb6ueho"}, "cafe_euszb6ueho", 0},
		}},
		{"smallest MaxLen", Profile{MaxLen: 13}, []row{
			{Key{"s", "abcdefghijk"}, "abcdefghijk", 0},
			{Key{"s", "abcdefghijklmn"}, "s__f7hkuvjyjm", Qualified | Shortened},
		}},
		{"duplicate keys", OpenAI, []row{
			{Key{"a", "get"}, "a__get", Qualified},
			{Key{"b", "get"}, "b__get", Qualified},
			{Key{"a", "get"}, "a__get", Qualified},
			{Key{"c", "put"}, "put", 0},
			{Key{"c", "put"}, "put", 0},
			{Key{"a", "get"}, "a__get", Qualified},
		}},
	}
	byKey := func(a, b row) int { return compareKeys(a.key, b.key) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys := make([]Key, len(tt.rows))
			distinct := map[Key]Reason{}
			for i, r := range tt.rows {
				keys[i] = r.key
				distinct[r.key] = r.reason
			}
			n, err := Assign(tt.profile, keys)
			require.NoError(t, err)
			var got []row
			for _, k := range keys {
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
			want := slices.Clone(tt.rows)
			slices.SortStableFunc(want, byKey)
			slices.SortStableFunc(got, byKey)
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(row{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			fallbacks := 0
			for _, reason := range distinct {
				if reason != 0 {
					fallbacks++
				}
			}
			assert.Equal(t, len(distinct), n.Len(), "one name a key")
			assert.Len(t, n.Fallbacks(), fallbacks, "one fallback a key")
			checkNames(t, tt.profile, keys, n)
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

// TestAssignInvariants checks every promise of Assign (checkNames) for
// each key set under each profile, and for random keys under each
// profile with a lower MaxLen.
func TestAssignInvariants(t *testing.T) {
	type test struct {
		name    string
		profile Profile
		keys    []Key
	}
	var tests []test
	for _, ks := range keySets() {
		for _, pr := range profileRules {
			tests = append(tests, test{ks.name + "/" + pr.name, pr.profile, ks.keys})
		}
	}
	for _, maxLen := range []int{13, 14, 20, 32} {
		for _, pr := range profileRules {
			p := pr.profile
			p.MaxLen = maxLen
			keys := randomKeys(rand.New(rand.NewPCG(3, uint64(maxLen))), 300)
			tests = append(tests, test{fmt.Sprintf("MaxLen %d/%s", maxLen, pr.name), p, keys})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Assign(tt.profile, tt.keys)
			require.NoError(t, err)
			checkNames(t, tt.profile, tt.keys, n)
		})
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

// TestAssignErrors checks that Assign refuses an invalid key or profile
// with a typed error that names the culprit, and returns no table.
func TestAssignErrors(t *testing.T) {
	type test struct {
		name     string
		profile  Profile
		keys     []Key
		sentinel error
		code     Code
		index    int
		field    string
		input    string
		offset   int
	}
	invalidKey := func(name string, keys []Key, index int, field, input string, offset int) test {
		return test{name, OpenAI, keys, ErrInvalidKey, CodeInvalidKey, index, field, input, offset}
	}
	tests := []test{
		invalidKey("empty server", []Key{{"a", "b"}, {"", "t"}}, 1, "server", "", -1),
		invalidKey("empty tool", []Key{{"s", ""}}, 0, "tool", "", -1),
		invalidKey("both empty", []Key{{}}, 0, "server", "", -1),
		invalidKey("invalid server", []Key{{"ok", "ok"}, {"ok", "ok"}, {"a\xffb", "t"}}, 2, "server", "a\xffb", 1),
		invalidKey("invalid tool", []Key{{"s", "caf\xc3"}}, 0, "tool", "caf\xc3", 3),
		invalidKey("surrogate", []Key{{"s", "\xed\xa0\x80"}}, 0, "tool", "\xed\xa0\x80", 0),
		invalidKey("first bad key wins", []Key{{"s", "\x80"}, {"", "t"}}, 0, "tool", "\x80", 0),
	}
	// A MaxLen out of the profile's range, whatever the keys.
	for _, pm := range []struct {
		name    string
		profile Profile
		maxLen  int
	}{
		{"OpenAI", OpenAI, -1}, {"Portable", Portable, math.MinInt}, {"OpenAI", OpenAI, 1}, {"OpenAI", OpenAI, 5},
		{"OpenAI", OpenAI, 10}, {"OpenAI", OpenAI, 65}, {"Gemini", Gemini, 64}, {"zero", Profile{}, 64},
		{"MCP", MCP, 129}, {"Anthropic", Anthropic, 1 << 40},
	} {
		p := pm.profile
		p.MaxLen = pm.maxLen
		tests = append(tests, test{fmt.Sprintf("%s MaxLen %d", pm.name, pm.maxLen), p, []Key{{"s", "t"}},
			ErrInvalidProfile, CodeInvalidProfile, -1, "MaxLen", fmt.Sprint(pm.maxLen), -1})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Assign(tt.profile, tt.keys)
			require.ErrorIs(t, err, tt.sentinel)
			assert.Nil(t, n)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.code, e.Code)
			assert.Equal(t, tt.index, e.Index)
			assert.Equal(t, tt.field, e.Field)
			assert.Equal(t, tt.input, e.Input)
			assert.Equal(t, tt.offset, e.Offset)
		})
	}
}

// TestWithLogger checks that Assign logs each fallback once, at Info,
// through the last logger given, and that a nil logger changes nothing
// but the logging.
func TestWithLogger(t *testing.T) {
	tests := []struct {
		name    string
		options func(*slog.Logger) []Option
		logs    bool
	}{
		{"the last logger, after nil and zero options", func(l *slog.Logger) []Option {
			return []Option{WithLogger(l), Option{}, WithLogger(nil), WithLogger(l)}
		}, true},
		{"a nil logger", func(*slog.Logger) []Option { return []Option{WithLogger(nil)} }, false},
	}
	type record struct {
		Level, Msg, Server, Tool, Name, Reason string
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			n, err := Assign(OpenAI, goldenKeys, tt.options(slog.New(slog.NewJSONHandler(&buf, nil)))...)
			require.NoError(t, err)
			assert.Equal(t, len(goldenKeys), n.Len())
			var got []record
			dec := json.NewDecoder(&buf)
			for dec.More() {
				var r record
				require.NoError(t, dec.Decode(&r))
				got = append(got, r)
			}
			var want []record
			if tt.logs {
				for _, f := range n.Fallbacks() {
					want = append(want, record{"INFO", "toolname: fallback name", f.Key.Server, f.Key.Tool, f.Name, f.Reason.String()})
				}
				require.NotEmpty(t, want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("log records (-want +got):\n%s", diff)
			}
		})
	}
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
	var n *Table
	name, ok := n.Name(Key{"s", "t"})
	assert.False(t, ok)
	assert.Empty(t, name)
	k, ok := n.Key("t")
	assert.False(t, ok)
	assert.Equal(t, Key{}, k)
	assert.Zero(t, n.Len())
	assert.Nil(t, n.Fallbacks())
}

func TestKeyUnknown(t *testing.T) {
	n, err := Assign(OpenAI, goldenKeys)
	require.NoError(t, err)
	for _, name := range []string{"", "github::search", "github__search_x", "Github__search", "a.b__fetch"} {
		t.Run(name, func(t *testing.T) {
			_, ok := n.Key(name)
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
		if got, ok := n.Key(name); !ok || got != k {
			t.Fatal("Key failed")
		}
	}), "Key")
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		if got, ok := n.Name(k); !ok || got != name {
			t.Fatal("Name failed")
		}
	}), "Name")
}

// checkNames verifies every promise Assign makes about n, the result for
// keys under p, against the independent regexp of p's rule.
func checkNames(t *testing.T, p Profile, keys []Key, n *Table) {
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

func namesOf(n *Table, keys []Key) map[Key]string {
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

// retiredNames returns the names n's chain has retired.
func (n *Table) retiredNames() []string {
	var out []string
	n.retiredAll(func(name string, _ named) { out = append(out, name) })
	return out
}

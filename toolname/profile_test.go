package toolname

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpid/mcpid/internal/testkit/namecases"
)

// profileRule pairs a profile with its rule restated as a regular
// expression (see namecases.Rules).
type profileRule struct {
	name    string
	profile Profile
	re      *regexp.Regexp
	maxLen  int
}

// profileRules holds every profile with its rule, in namecases.Rules'
// order.
var profileRules = func() []profileRule {
	profiles := []Profile{OpenAI, Anthropic, Gemini, MCP, Portable, {}}
	rules := make([]profileRule, len(profiles))
	for i, p := range profiles {
		r := namecases.Rules[i]
		rules[i] = profileRule{r.Name, p, r.Re, r.MaxLen}
	}
	return rules
}()

func TestProfileValid(t *testing.T) {
	tests := []struct {
		name  string
		input string
		valid []string // the profiles that accept input
	}{
		{"letters", "search", []string{"OpenAI", "Anthropic", "Gemini", "MCP", "Portable", "zero"}},
		{"underscore and dash", "create_issue-v2", []string{"OpenAI", "Anthropic", "Gemini", "MCP", "Portable", "zero"}},
		{"leading underscore", "_x", []string{"OpenAI", "Anthropic", "Gemini", "MCP", "Portable", "zero"}},
		{"leading digit", "2fa", []string{"OpenAI", "Anthropic", "MCP"}},
		{"leading dash", "-x", []string{"OpenAI", "Anthropic", "MCP"}},
		{"dot", "admin.tools.list", []string{"Gemini", "MCP"}},
		{"leading dot", ".x", []string{"MCP"}},
		{"colon", "ns:get", nil},
		{"slash", "user/update", nil},
		{"space", "a b", nil},
		{"non-ASCII", "café", nil},
		{"empty", "", nil},
		{"63 bytes", strings.Repeat("a", 63), []string{"OpenAI", "Anthropic", "Gemini", "MCP", "Portable", "zero"}},
		{"64 bytes", strings.Repeat("a", 64), []string{"OpenAI", "Anthropic", "MCP"}},
		{"65 bytes", strings.Repeat("a", 65), []string{"Anthropic", "MCP"}},
		{"128 bytes", strings.Repeat("a", 128), []string{"Anthropic", "MCP"}},
		{"129 bytes", strings.Repeat("a", 129), nil},
		{"NUL", "a\x00", nil},
		{"high byte", "a\xff", nil},
	}
	for _, tt := range tests {
		for _, pr := range profileRules {
			t.Run(tt.name+"/"+pr.name, func(t *testing.T) {
				want := false
				for _, v := range tt.valid {
					want = want || v == pr.name
				}
				assert.Equal(t, want, pr.profile.Valid(tt.input), "Valid")
				assert.Equal(t, want, pr.re.MatchString(tt.input), "reference regexp")
			})
		}
	}
}

func TestProfileMaxLen(t *testing.T) {
	short := Anthropic
	short.MaxLen = 64
	negative := Gemini
	negative.MaxLen = -1
	tests := []struct {
		name    string
		profile Profile
		ok, bad string
	}{
		{"lowered", short, strings.Repeat("a", 64), strings.Repeat("a", 65)},
		{"negative means the rule's own", negative, strings.Repeat("a", 63), strings.Repeat("a", 64)},
		{"MaxLen only means Portable's characters", Profile{MaxLen: 20}, strings.Repeat("a", 20), strings.Repeat("a", 21)},
		{"MaxLen only keeps the leading rule", Profile{MaxLen: 20}, "_1", "1_"},
		{"above the rule's own means the rule's own", Profile{MaxLen: 300}, strings.Repeat("a", 63), strings.Repeat("a", 64)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.True(t, tt.profile.Valid(tt.ok), "%q", tt.ok)
			assert.False(t, tt.profile.Valid(tt.bad), "%q", tt.bad)
		})
	}
}

func TestProfileValidAllocs(t *testing.T) {
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		if !OpenAI.Valid("create_issue") {
			t.Fatal("not valid")
		}
	}))
}

package toolname

// A Profile is one model provider's rule for tool names: which ASCII
// characters, whether a letter or '_' comes first, and how long. Copy one
// of the profile variables; only MaxLen may change, and only to lower the
// limit. The zero Profile means [Portable].
type Profile struct {
	// MaxLen is the greatest length of a name, in bytes; zero means the
	// limit of the profile's character rule. Assign rejects one above that
	// limit, or below 13 but for zero.
	MaxLen int

	rule *rule
}

// rule is a profile's character rule, as a byte table.
type rule struct {
	name    string    // the profile's name, as a table records it
	allowed [256]bool // ASCII bytes allowed anywhere in a name
	lead    bool      // the first byte must be a letter or '_'
	maxLen  int       // the provider's documented limit
}

func newRule(name, punct string, lead bool, maxLen int) *rule {
	r := &rule{name: name, lead: lead, maxLen: maxLen}
	for c := 'a'; c <= 'z'; c++ {
		r.allowed[c] = true
		r.allowed[c-'a'+'A'] = true
	}
	for c := '0'; c <= '9'; c++ {
		r.allowed[c] = true
	}
	for i := 0; i < len(punct); i++ {
		r.allowed[punct[i]] = true
	}
	return r
}

var (
	openAIRule    = newRule("OpenAI", "_-", false, 64)
	anthropicRule = newRule("Anthropic", "_-", false, 128)
	geminiRule    = newRule("Gemini", "_.-", true, 63)
	mcpRule       = newRule("MCP", "_.-", false, 128)
	portableRule  = newRule("Portable", "_-", true, 63)
)

// rules are the character rules by the name a table records.
var rules = map[string]*rule{
	openAIRule.name:    openAIRule,
	anthropicRule.name: anthropicRule,
	geminiRule.name:    geminiRule,
	mcpRule.name:       mcpRule,
	portableRule.name:  portableRule,
}

// The provider profiles; [Portable] is valid for every one of them.
var (
	// OpenAI accepts 1 to 64 characters from A-Z, a-z, 0-9, '_' and '-'.
	OpenAI = Profile{MaxLen: 64, rule: openAIRule}

	// Anthropic accepts 1 to 128 characters from A-Z, a-z, 0-9, '_' and '-'.
	Anthropic = Profile{MaxLen: 128, rule: anthropicRule}

	// Gemini accepts 1 to 63 characters from A-Z, a-z, 0-9, '_', '.' and
	// '-', the first of them a letter or '_'. Gemini itself also accepts
	// ':', which MCP does not; the profile leaves it out, so that a
	// gateway can serve every name over MCP.
	Gemini = Profile{MaxLen: 63, rule: geminiRule}

	// MCP accepts 1 to 128 characters from A-Z, a-z, 0-9, '_', '.' and '-',
	// the tool-name format recommended by the Model Context Protocol
	// specification.
	MCP = Profile{MaxLen: 128, rule: mcpRule}

	// Portable accepts 1 to 63 characters from A-Z, a-z, 0-9, '_' and '-',
	// the first of them a letter or '_'. A name valid for Portable is valid
	// for every other profile. The zero Profile means Portable.
	Portable = Profile{MaxLen: 63, rule: portableRule}
)

// effective returns the character rule and length limit that p stands for:
// the zero rule means Portable's, and a MaxLen of zero or less, or above
// the rule's own limit, means that limit.
func (p Profile) effective() (*rule, int) {
	r := p.rule
	if r == nil {
		r = portableRule
	}
	maxLen := p.MaxLen
	if maxLen <= 0 || maxLen > r.maxLen {
		maxLen = r.maxLen
	}
	return r, maxLen
}

// check is effective for Assign: it rejects a MaxLen that Assign cannot
// honour, below the shortest hashed name (but not zero) or above the
// rule's own limit.
func (p Profile) check() (*rule, int, error) {
	r, maxLen := p.effective()
	if p.MaxLen != 0 && (p.MaxLen < minMaxLen || p.MaxLen > r.maxLen) {
		return nil, 0, profileError(p.MaxLen, r.maxLen)
	}
	return r, maxLen, nil
}

// Valid reports whether name is a valid tool name under p. Such a name is
// non-empty, at most MaxLen bytes, made only of the profile's characters,
// and starting with a letter or '_' where the profile requires it. It does
// not allocate.
func (p Profile) Valid(name string) bool {
	r, maxLen := p.effective()
	return r.valid(name, maxLen)
}

func (r *rule) valid(name string, maxLen int) bool {
	if name == "" || len(name) > maxLen {
		return false
	}
	if r.lead && !isLead(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !r.allowed[name[i]] {
			return false
		}
	}
	return true
}

// isLead reports whether c may start a name under a profile that requires a
// letter or '_' first.
func isLead(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

package toolname

// A Profile is one model provider's rule for tool names. It says which
// ASCII characters a name may use, whether its first character must be a
// letter or '_', and how long it may be. Names are never empty.
//
// The character rule is fixed by the profile variable a Profile is copied
// from ([OpenAI], [Anthropic], [Gemini], [MCP], [Portable]); only MaxLen can
// be changed, for a host that enforces a stricter limit than its provider:
//
//	p := toolname.Anthropic
//	p.MaxLen = 64
//
// The zero Profile means [Portable], both for [Profile.Valid] and for
// [Assign]; a Profile whose only field set is MaxLen uses Portable's
// character rule with that limit.
//
// Where the rules come from:
//
//   - OpenAI: the API reference for function tools says a name may use
//     a-z, A-Z, 0-9, underscores and dashes, at most 64 characters; the API
//     rejects others against the pattern ^[a-zA-Z0-9_-]{1,64}$.
//   - Anthropic: the Messages API validates tool names against
//     ^[a-zA-Z0-9_-]{1,128}$. Some hosts built on it enforce 64; use OpenAI,
//     Portable, or a lower MaxLen for those.
//   - Gemini: the function declaration reference asks for a first character
//     that is a letter or an underscore, then letters, digits, underscores,
//     dots, colons and dashes. Its documents have given the limit as both 63
//     and 64 characters; the profile takes the stricter 63. It leaves out
//     the colon, which MCP does not allow.
//   - MCP: the specification (revision 2025-11-25, "Tool names")
//     recommends 1 to 128 characters from A-Z, a-z, 0-9, '_', '-' and '.'.
//   - Portable is the intersection of all of these, and the default.
//
// Every profile's names are valid MCP tool names too, because a gateway
// serves them over MCP. A gateway that serves clients of several
// providers, or does not know which provider a client talks to, should
// use Portable: its names are valid for every one of them.
type Profile struct {
	// MaxLen is the greatest length of a name, in bytes (every valid name
	// is ASCII, so also in characters). Zero means the limit of the
	// profile's character rule: 64 for OpenAI, 128 for Anthropic and MCP,
	// 63 for Gemini and Portable and for the zero Profile. MaxLen can only
	// lower that limit: Assign rejects a MaxLen above it, which the
	// provider would refuse, and one below 13 other than zero (negative
	// values included), which cannot hold a hash suffix. Valid, which has
	// no error to report, reads a negative MaxLen or one above the rule's
	// limit as the limit.
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

// The provider profiles. [Profile] gives the source of each rule.
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

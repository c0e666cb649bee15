package toolname

// saltSlack is how many more salts than a table has entries a hash suffix
// is tried with. Each salt beyond the first takes a name that some other
// key or a reserved name holds, and a version 1 table does not record its
// reserved names: the slack stands for them.
const saltSlack = 64

// deriveCheck tells whether a qualified name is one that Assign derives
// from its own key, for [Names.UnmarshalJSON]. It keeps its buffers from
// one name to the next.
type deriveCheck struct {
	bound int // the highest salt a hash suffix is tried with
	buf   []byte
	hash  []byte
}

// newDeriveCheck returns the check for a table of entries names.
func newDeriveCheck(entries int) *deriveCheck {
	return &deriveCheck{bound: entries + saltSlack}
}

// foldRules are the character rules of the profiles.
var foldRules = [...]*rule{openAIRule, anthropicRule, geminiRule, mcpRule, portableRule}

// derives reports whether name, given for reason, is a qualified name that
// Assign gives k under some profile and MaxLen: k's own candidate
// "server__tool" as Assign folds it, or a hashed name cut from that
// candidate as Assign cuts it, ending in k's own hash. The profile is not
// the table's alone: a chain keeps the names it gave under earlier
// profiles.
func (c *deriveCheck) derives(k Key, name string, reason Reason) bool {
	for _, r := range foldRules {
		var start int
		var folded Reason
		c.buf, start, folded = r.candidate(c.buf[:0], k, true)
		if c.derivesFrom(r, k, name, reason, c.buf, start, folded) {
			return true
		}
	}
	return false
}

// derivesFrom is derives for one candidate under r, base, whose tool part
// starts at start and whose reasons are folded.
func (c *deriveCheck) derivesFrom(r *rule, k Key, name string, reason Reason, base []byte, start int, folded Reason) bool {
	if reason&Folded != folded&Folded {
		return false
	}
	if reason&(Shortened|Rehashed) == 0 {
		return reason == folded && string(base) == name
	}
	if len(name) < hashLen {
		return false
	}
	prefix, hash := name[:len(name)-hashLen], name[len(name)-hashLen:]
	server, tool := base[:start-len("__")], base[start:]
	if !readable(tool) {
		tool = nil // the hash stands in for the tool (see mark)
	}
	if !cutFrom(prefix, server, tool, r.maxLen, reason&Shortened != 0) {
		return false
	}
	salts := 0
	if reason&Rehashed != 0 {
		salts = c.bound // a salt is only ever added to a name marked rehashed
	}
	for salt := 0; salt <= salts; salt++ {
		c.hash = appendHash(c.hash[:0], k, uint64(salt))
		if string(c.hash) == hash {
			return true
		}
	}
	return false
}

// cutFrom reports whether prefix, what a hashed name holds before its
// hash, is what hashCut keeps of the candidate server "__" tool under some
// MaxLen up to maxLen, cut or whole as shortened says.
func cutFrom(prefix string, server, tool []byte, maxLen int, shortened bool) bool {
	for m := minMaxLen; m <= maxLen; m++ {
		keepServer, keepTool, withTool, cut := hashCut(len(server), len(tool), m)
		if cut != shortened {
			continue
		}
		want := keepServer + len("__")
		if withTool {
			want += keepTool + len("_")
		}
		if len(prefix) != want || prefix[:keepServer] != string(server[:keepServer]) ||
			prefix[keepServer:keepServer+2] != "__" {
			continue
		}
		if !withTool || prefix[keepServer+2:want-1] == string(tool[:keepTool]) && prefix[want-1] == '_' {
			return true
		}
	}
	return false
}

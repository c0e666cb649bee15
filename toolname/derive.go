package toolname

// saltSlack is how many more salts than a table has entries its hash
// suffixes may take together. Each salt beyond the first takes a name that
// some other key or a reserved name holds, so the salts of all of a
// table's names add up to no more than its names and reserved names; a
// version 1 table does not record its reserved names, and the slack
// stands for them. So the hashes a load computes stay linear in the
// table, whatever a crafted file claims.
const saltSlack = 64

// deriveCheck tells whether a qualified name is one that Assign derives
// from its own key, for [Table.UnmarshalJSON]. It keeps its buffers from
// one name to the next.
type deriveCheck struct {
	budget int // the salts that the table's names may still take together
	buf    []byte
	hash   []byte
}

// newDeriveCheck returns the check for a table of entries names.
func newDeriveCheck(entries int) *deriveCheck {
	return &deriveCheck{budget: entries + saltSlack}
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
		if shapedFrom(r, name, reason, c.buf, start, folded) {
			return reason&(Shortened|Rehashed) == 0 || c.ownHash(k, name, reason)
		}
	}
	return false
}

// shapedFrom reports whether name, but for its hash suffix if it has one,
// is what Assign makes of the candidate base under r, whose tool part
// starts at start and whose reasons are folded.
func shapedFrom(r *rule, name string, reason Reason, base []byte, start int, folded Reason) bool {
	if reason&Folded != folded&Folded {
		return false
	}
	if reason&(Shortened|Rehashed) == 0 {
		return reason == folded && string(base) == name
	}
	if len(name) < hashLen {
		return false
	}
	server, tool := base[:start-len("__")], base[start:]
	if !readable(tool) {
		tool = nil // the hash stands in for the tool (see mark)
	}
	return cutFrom(name[:len(name)-hashLen], server, tool, r.maxLen, reason&Shortened != 0)
}

// ownHash reports whether name ends in k's hash suffix, salted no more
// than the table's budget allows. A salt is only ever added to a name
// marked rehashed.
func (c *deriveCheck) ownHash(k Key, name string, reason Reason) bool {
	hash := name[len(name)-hashLen:]
	for salt := 0; ; salt++ {
		if salt > 0 {
			if reason&Rehashed == 0 || c.budget == 0 {
				return false
			}
			c.budget--
		}
		c.hash = appendHash(c.hash[:0], k, uint64(salt))
		if string(c.hash) == hash {
			return true
		}
	}
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

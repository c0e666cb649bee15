package toolname

import (
	"slices"
	"strings"
)

// Assign gives every key a distinct name valid under profile, from the
// whole set at once; the order of keys does not matter. A unique, valid
// tool name without "__" stays bare; any other is "server__tool", folded,
// shortened or hashed, and only such a qualified name holds "__". The
// result is injective and deterministic across processes and releases.
func Assign(profile Profile, keys []Key, opts ...Option) (*Table, error) {
	o := collect(opts)
	r, maxLen, err := profile.check()
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		if err := checkKey(i, k); err != nil {
			return nil, err
		}
	}
	reserved := make(map[string]bool, len(o.reserved))
	for i, name := range o.reserved {
		if !r.valid(name, maxLen) {
			return nil, reservedError(i, name)
		}
		reserved[name] = true
	}

	// Work on the sorted, duplicate-free set, so that nothing below
	// depends on the order of keys.
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, compareKeys)
	sorted = slices.Compact(sorted)
	a := &assignment{
		r:        r,
		maxLen:   maxLen,
		o:        &o,
		reserved: reserved,
		keys:     sorted,
		slots:    make([]slot, len(sorted)),
		byName:   make(map[string]Key, len(sorted)),
	}
	a.keepPrevious()
	a.propose()
	a.settle()
	a.hash()
	n := a.table()
	n.naming = newNaming(r, maxLen, &o)
	o.logFallbacks(n)
	return n, nil
}

// assignment is the state of one call to Assign.
type assignment struct {
	r        *rule
	maxLen   int
	o        *options
	reserved map[string]bool
	keys     []Key  // sorted and distinct
	slots    []slot // the name being built for each key
	byName   map[string]Key
	plain    map[string]candidates // unhashed candidates, by name
	back     []string              // retired names given back to their keys
}

// slot is the name being built for one key.
type slot struct {
	name string
	// base is the qualified candidate "server__tool", folded, and tool
	// where its tool part starts; a hashed name is cut from them.
	base   string
	tool   int
	reason Reason
	done   bool // the name is final: kept from the chain, or bare
	hashed bool // the name will end in a hash suffix
}

// candidates counts the keys whose candidate is one name, and how many of
// them needed no folding.
type candidates struct {
	n, unfolded int
}

// taken reports whether name is not free for a new key: it is reserved,
// some key holds or held it in the chain, or this call gave it out.
func (a *assignment) taken(name string) bool {
	if _, ok := a.byName[name]; ok {
		return true
	}
	return a.reserved[name] || a.o.prev.held(name)
}

// usable reports whether a name from the chain can be kept.
func (a *assignment) usable(name string) bool {
	return a.r.valid(name, a.maxLen) && !a.reserved[name]
}

// give makes name the final name of slot i.
func (a *assignment) give(i int, name string, reason Reason) {
	a.slots[i] = slot{name: name, reason: reason, done: true}
	a.byName[name] = a.keys[i]
}

// keepPrevious gives every key that the previous table names that name
// again, while it is usable. A key that left and came back, or whose name
// is no longer usable, takes back a name it held before, if one is usable:
// the first in byte order, should it have held several (which takes a
// change of profile or of reserved names).
func (a *assignment) keepPrevious() {
	prev := a.o.prev
	if prev == nil {
		return
	}
	for i, k := range a.keys {
		if e, ok := prev.byKey[k]; ok && a.usable(e.name) && ownName(k, e.name) {
			a.give(i, e.name, e.reason)
		}
	}
	for i, k := range a.keys {
		if a.slots[i].done {
			continue
		}
		var back named
		prev.retiredOf(k, func(name string, e named) {
			if a.usable(name) && ownName(k, name) && (back.name == "" || name < back.name) {
				back = named{name: name, reason: e.reason}
			}
		})
		if back.name != "" {
			a.give(i, back.name, back.reason)
			a.back = append(a.back, back.name)
		}
	}
}

// propose gives each remaining key its bare tool name when it can keep it,
// and otherwise builds its folded candidate, marking the ones that need a
// hash whatever the other names.
func (a *assignment) propose() {
	carriers := make(map[string]int, len(a.keys))
	for _, k := range a.keys {
		carriers[k.Tool]++
	}
	var buf []byte
	for i, k := range a.keys {
		s := &a.slots[i]
		if s.done {
			continue
		}
		// A bare name is only ever the key's own tool name, byte for
		// byte: a tool that must be folded or shortened to be valid is
		// qualified, so that a look-alike (a fullwidth "ｓｅａｒｃｈ")
		// can never take "search", whichever comes first.
		qualify := a.o.qualifyAll || carriers[k.Tool] > 1 || strings.Contains(k.Tool, "__") ||
			a.taken(k.Tool) || !a.r.valid(k.Tool, a.maxLen)
		if !qualify {
			a.give(i, k.Tool, 0)
			continue
		}
		var start int
		buf, start, s.reason = a.r.candidate(buf[:0], k, true)
		a.mark(i, buf, start)
	}
}

// candidate appends to buf the folded candidate of k, "server__tool" when
// qualified, with a leading '_' where the profile needs one. It returns
// where the tool starts in buf and the reasons so far.
func (r *rule) candidate(buf []byte, k Key, qualify bool) ([]byte, int, Reason) {
	var reason Reason
	start := 0
	if qualify {
		reason |= Qualified
		buf = r.appendFolded(buf, k.Server)
		if string(buf) != k.Server {
			reason |= Folded
		}
		buf = append(buf, "__"...)
		start = len(buf)
	}
	buf = r.appendFolded(buf, k.Tool)
	if string(buf[start:]) != k.Tool {
		reason |= Folded
	}
	if r.lead && (len(buf) == 0 || !isLead(buf[0])) {
		reason |= Folded
		buf = append(buf, 0)
		copy(buf[1:], buf)
		buf[0] = '_'
		start++
	}
	return buf, start, reason
}

// mark records the candidate in buf for slot i: as a hashed name when it
// needs a hash whatever the other names, and otherwise as a plain
// candidate that settle checks against the others.
func (a *assignment) mark(i int, buf []byte, start int) {
	s := &a.slots[i]
	k := a.keys[i]
	s.tool = start
	switch {
	case !readable(buf[start:]):
		// Nothing of the tool name survived folding: the hash stands in
		// for it.
		s.reason |= Rehashed
		s.hashed = true
		s.base = string(buf[:start])
	case len(buf) > a.maxLen:
		s.reason |= Shortened
		s.hashed = true
		s.base = string(buf)
	case a.o.qualifyAll && (s.reason&Folded != 0 || ambiguousServer(k.Server)):
		// Only the raw "server__tool" of a server that cannot be read
		// as part of another key's name is the same in every key set.
		s.reason |= Rehashed
		s.hashed = true
		s.base = string(buf)
	default:
		s.name = string(buf)
		if a.plain == nil {
			a.plain = make(map[string]candidates)
		}
		c := a.plain[s.name]
		c.n++
		if s.reason&Folded == 0 {
			c.unfolded++
		}
		a.plain[s.name] = c
	}
}

// ownName reports whether a chain may keep name for k: a qualified name
// (one holding "__"), or k's own tool name. A bare name that is not k's
// own tool name, such as the folded "search" of a fullwidth tool, is never
// kept.
func ownName(k Key, name string) bool {
	return strings.Contains(name, "__") || name == k.Tool
}

// ambiguousServer reports whether "server__tool" could also be read as the
// qualified name of another server: the first "__" of the name is the
// separator only when the server holds no "__" and does not end in '_'.
func ambiguousServer(server string) bool {
	return strings.Contains(server, "__") || strings.HasSuffix(server, "_")
}

// settle gives each plain candidate its name, or a hash when it is taken,
// or when it equals other candidates, except that when exactly one of
// them needed no folding, that one keeps its name.
func (a *assignment) settle() {
	for i := range a.slots {
		s := &a.slots[i]
		if s.done || s.hashed {
			continue
		}
		if c := a.plain[s.name]; a.taken(s.name) || c.n > 1 && (c.unfolded != 1 || s.reason&Folded != 0) {
			s.reason |= Rehashed
			s.hashed = true
			s.base, s.name = s.name, ""
			continue
		}
		a.give(i, s.name, s.reason)
	}
}

// hash gives the hashed names, in key order. Should a hashed name still be
// taken (two 50-bit hashes that agree, or a name that happens to look like
// a hashed one), the hash is salted until the name is free.
func (a *assignment) hash() {
	var buf []byte
	for i := range a.slots {
		s := &a.slots[i]
		if !s.hashed {
			continue
		}
		prefix, cut := hashPrefix(s.base, s.tool, a.maxLen)
		if cut {
			s.reason |= Shortened
		}
		reason := s.reason
		for salt := uint64(0); ; salt++ {
			buf = append(buf[:0], prefix...)
			buf = appendHash(buf, a.keys[i], salt)
			if !a.taken(string(buf)) {
				break
			}
			reason |= Rehashed
		}
		a.give(i, string(buf), reason)
	}
}

// minKeptServer is the fewest bytes of the server part that a shortened
// name keeps, while the limit leaves room for them.
const minKeptServer = 8

// hashPrefix returns what a hashed name holds before its hash: the
// qualified candidate base ("server__tool", the tool starting at tool),
// cut by hashCut to fit maxLen with the hash, and reports whether it cut.
func hashPrefix(base string, tool, maxLen int) (string, bool) {
	server, t := base[:tool-len("__")], base[tool:]
	keepServer, keepTool, withTool, cut := hashCut(len(server), len(t), maxLen)
	switch {
	case !withTool:
		return server[:keepServer] + "__", cut
	case !cut:
		return base + "_", false
	}
	return server[:keepServer] + "__" + t[:keepTool] + "_", true
}

// hashCut says how a hashed name is cut from a candidate whose server
// part is serverLen bytes long and whose tool part toolLen (0 when the
// hash stands in for the tool) to fit maxLen with its hash: it keeps the
// first keepServer bytes of the server part and, withTool, "__" and the
// first keepTool bytes of the tool part and a '_' before the hash. It keeps
// the "__" and what the model chooses by: the tool part whole while the
// limit leaves room for it, the server part shortened first, down to no
// less than its first minKeptServer bytes, then the tool part. A name
// whose tool part folding left unreadable, or whose limit leaves no room
// for a tool part, is "server__" and the hash. cut reports whether it
// kept less than the whole candidate.
func hashCut(serverLen, toolLen, maxLen int) (keepServer, keepTool int, withTool, cut bool) {
	room := maxLen - len("__") - len("_") - hashLen // for server and tool
	if toolLen == 0 || room < 2 {
		// No tool part, or no room for one beside a server part.
		keep := min(serverLen, maxLen-len("__")-hashLen)
		return keep, 0, false, keep < serverLen || toolLen != 0
	}
	if serverLen+toolLen <= room {
		return serverLen, toolLen, true, false
	}
	keepServer = min(serverLen, max(minKeptServer, room-toolLen), room-1)
	return keepServer, min(toolLen, room-keepServer), true, true
}

// table builds the Table of this call: the names given, and the names of
// the chain that no key holds now.
func (a *assignment) table() *Table {
	n := &Table{
		keys:   a.keys,
		byKey:  make(map[Key]named, len(a.keys)),
		byName: a.byName,
	}
	for i, k := range a.keys {
		s := &a.slots[i]
		n.byKey[k] = named{name: s.name, reason: s.reason}
		if s.reason != 0 {
			n.fallbacks = append(n.fallbacks, Fallback{Key: k, Name: s.name, Reason: s.reason})
		}
	}
	slices.SortFunc(n.fallbacks, func(a, b Fallback) int { return strings.Compare(a.Name, b.Name) })
	n.indexTools()
	if prev := a.o.prev; prev != nil {
		// The chain's retired names at the next generation: prev's, but
		// for those given back, and with prev's names that no key holds
		// now. They are kept as a change beside prev's store, so that
		// this costs the change, not the history (see retired.go).
		ch := &change{retired: map[string]named{}, byKey: map[Key][]string{}, back: a.back}
		for _, k := range prev.keys {
			e := prev.byKey[k]
			if _, current := n.byName[e.name]; !current {
				ch.retired[e.name] = named{key: k, reason: e.reason}
				ch.byKey[k] = append(ch.byKey[k], e.name)
			}
		}
		n.retired, n.gen, n.chainID, n.change = prev.continued(), prev.gen+1, prev.chainID, ch
	} else {
		n.gen, n.chainID = 1, newChainID()
	}
	return n
}

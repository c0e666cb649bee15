package toolname

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// The versions of the JSON form of a [Table]. Version 1 records no
// chain: no id, no generation, no options.
const (
	tableVersion1 = 1
	tableVersion  = 2
)

// optionsJSON is the JSON form of the options that shape a chain's names.
type optionsJSON struct {
	Profile    string   `json:"profile"`
	MaxLen     int      `json:"max_len"`
	QualifyAll bool     `json:"qualify_all"`
	Reserved   []string `json:"reserved"`
}

// UnmarshalJSON reads into n a table that [Table.MarshalJSON] wrote, and
// only such a table: anything else, tampered names included, is
// [ErrInvalidTable] and leaves n as it was. Call it on a new Table.
func (n *Table) UnmarshalJSON(data []byte) error {
	if !json.Valid(data) {
		return invalidJSON(data)
	}
	s := &tableScan{data: data, text: string(data)}
	// Count the entries first, so that every map is made at its size.
	var count [2]int
	t, err := s.scan(func(list, _ int, _ scannedEntry) error {
		count[list]++
		return nil
	})
	if err != nil {
		return err
	}
	out := &Table{
		keys:   make([]Key, 0, count[0]),
		byKey:  make(map[Key]named, count[0]),
		byName: make(map[string]Key, count[0]),
	}
	if err := t.readChain(out); err != nil {
		return err
	}
	if count[1] > 0 {
		out.retired = newRetiredStore(out.gen, count[1])
	}
	check := newDeriveCheck(count[0] + count[1])
	if out.naming != nil {
		check.budget += len(out.naming.reserved)
	}
	if _, err := s.scan(func(list, i int, j scannedEntry) error {
		k, e, err := j.read(lists[list], i, check)
		if err != nil {
			return err
		}
		if list == 0 {
			return out.addLive(i, k, e)
		}
		if out.held(e.name) {
			return namesError("retired entry repeats a name", i, "name", e.name, nil)
		}
		out.retired.retire(e.name, named{key: k, reason: e.reason}, 0)
		return nil
	}); err != nil {
		return err
	}
	slices.SortFunc(out.keys, compareKeys)
	slices.SortFunc(out.fallbacks, func(a, b Fallback) int { return strings.Compare(a.Name, b.Name) })
	out.indexTools()
	if out.naming == nil {
		out.chainID = out.contentID()
	}
	*n = *out
	return nil
}

// invalidJSON is the error for data that is not one JSON value.
func invalidJSON(data []byte) error {
	var first json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&first); err != nil {
		return namesError("bad JSON", -1, "", "", err)
	}
	return namesError("text after the table", -1, "", "", nil)
}

// addLive adds entry i of "names", k named e.
func (n *Table) addLive(i int, k Key, e named) error {
	if _, dup := n.byKey[k]; dup {
		return namesError("names entry repeats a key", i, "tool", k.Tool, nil)
	}
	if _, dup := n.byName[e.name]; dup {
		return namesError("names entry repeats a name", i, "name", e.name, nil)
	}
	if m := n.naming; m != nil && !m.allows(e.name) {
		return namesError("names entry has a name that the chain's options do not allow", i, "name", e.name, nil)
	}
	n.keys = append(n.keys, k)
	n.byKey[k] = e
	n.byName[e.name] = k
	if e.reason != 0 {
		n.fallbacks = append(n.fallbacks, Fallback{Key: k, Name: e.name, Reason: e.reason})
	}
	return nil
}

// readChain checks the version and the chain's identity and options, and
// sets them in out: a version 2 table records all of them, a version 1
// table none. Both hold both lists.
func (t *scannedTable) readChain(out *Table) error {
	switch t.version {
	case tableVersion1:
		if t.identity || t.options != nil {
			return namesError("version 1 table with a chain", -1, "version", "1", nil)
		}
	case tableVersion:
		if err := t.readIdentity(out); err != nil {
			return err
		}
	default:
		return namesError("unknown version", -1, "version", strconv.FormatUint(t.version, 10), nil)
	}
	if !t.names || !t.retired {
		return namesError("table without its names or its retired names", -1, "", "", nil)
	}
	return nil
}

// readIdentity checks and sets the chain id, generation and options of a
// version 2 table.
func (t *scannedTable) readIdentity(out *Table) error {
	if !validChainID(t.chain) {
		return namesError("chain id is not 32 lower-case hex digits", -1, "chain", t.chain, nil)
	}
	if t.generation == 0 {
		return namesError("generation is not positive", -1, "generation", "0", nil)
	}
	o := t.options
	if o == nil {
		return namesError("version 2 table without options", -1, "options", "", nil)
	}
	r := rules[o.Profile]
	if r == nil {
		return namesError("options name an unknown profile", -1, "profile", o.Profile, nil)
	}
	if o.MaxLen < minMaxLen || o.MaxLen > r.maxLen {
		return namesError("options have a MaxLen the profile does not allow", -1, "max_len", strconv.Itoa(o.MaxLen), nil)
	}
	if o.Reserved == nil {
		return namesError("options without reserved names", -1, "reserved", "", nil)
	}
	for i, name := range o.Reserved {
		if !r.valid(name, o.MaxLen) || i > 0 && o.Reserved[i-1] >= name {
			return namesError("reserved names are not valid, sorted and distinct", i, "reserved", name, nil)
		}
	}
	out.chainID, out.gen = t.chain, t.generation
	out.naming = &naming{rule: r, maxLen: o.MaxLen, qualifyAll: o.QualifyAll, reserved: o.Reserved}
	return nil
}

// read checks one entry of list and returns its key, and its name with
// the reason.
func (j scannedEntry) read(list string, i int, check *deriveCheck) (Key, named, error) {
	k := Key{Server: j.server, Tool: j.tool}
	if badField(k.Server) != validField {
		return k, named{}, namesError(list+" entry has an empty or invalid server", i, "server", k.Server, nil)
	}
	if badField(k.Tool) != validField {
		return k, named{}, namesError(list+" entry has an empty or invalid tool", i, "tool", k.Tool, nil)
	}
	if !mcpRule.valid(j.name, mcpRule.maxLen) {
		return k, named{}, namesError(list+" entry has a name that is not a valid MCP tool name", i, "name", j.name, nil)
	}
	reason, ok := parseReason(j.reason)
	if !ok || j.reason == "none" {
		return k, named{}, namesError(list+" entry has an unknown reason", i, "reason", j.reason, nil)
	}
	if (reason == 0) != (j.name == k.Tool) {
		return k, named{}, namesError(list+" entry has a reason that disagrees with its name (a reason is given exactly when the name is not the tool name)", i, "reason", j.reason, nil)
	}
	qualified := strings.Contains(j.name, "__")
	if !qualified && j.name != k.Tool {
		// Assign gives a bare name only as a key's own tool name: a
		// look-alike could take another key's name.
		return k, named{}, namesError(list+" entry has a bare name that is not its own tool name", i, "name", j.name, nil)
	}
	if qualified && reason&Qualified == 0 {
		// Assign gives a name holding "__" only as a key's own
		// qualified name: a bare one could impersonate another key.
		return k, named{}, namesError(list+" entry has a name holding \"__\" that is not qualified", i, "name", j.name, nil)
	}
	if qualified && !check.derives(k, j.name, reason) {
		// Nor is it another key's qualified name, "evil::search"
		// holding "a__search".
		return k, named{}, namesError(list+" entry has a qualified name that Assign does not derive from its key", i, "name", j.name, nil)
	}
	return k, named{name: j.name, reason: reason}, nil
}

package toolname

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The versions of the JSON form of a Names table. Version 1 records no
// chain: no id, no generation, no options.
const (
	tableVersion1 = 1
	tableVersion  = 2
)

// tableJSON is the JSON form of a Names table.
type tableJSON struct {
	Version    int          `json:"version"`
	Chain      string       `json:"chain,omitempty"`
	Generation uint64       `json:"generation,omitempty"`
	Options    *optionsJSON `json:"options,omitempty"`
	Names      []entryJSON  `json:"names"`
	Retired    []entryJSON  `json:"retired"`
}

// optionsJSON is the JSON form of the options that shape a chain's names.
type optionsJSON struct {
	Profile    string   `json:"profile"`
	MaxLen     int      `json:"max_len"`
	QualifyAll bool     `json:"qualify_all"`
	Reserved   []string `json:"reserved"`
}

// entryJSON is one name with its key and, when it is not the bare tool
// name, the reason.
type entryJSON struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Name   string `json:"name"`
	Reason string `json:"reason,omitempty"`
}

// MarshalJSON writes the whole table. [Names.UnmarshalJSON] gives back a
// table equal in every respect, so that a gateway can continue its chain
// across restarts. The JSON has this shape:
//
//	{"version":1,
//	 "names":[{"server":"github","tool":"search","name":"github__search","reason":"qualified"},…],
//	 "retired":[{"server":"gitlab","tool":"search","name":"gitlab__search","reason":"qualified"},…]}
//
// "names" holds every key with its name, in the order of [Names.All];
// "retired" holds the names of the chain that no key holds now, each with
// the key that last held it, sorted by name. "reason" is the [Reason] as
// its String method writes it, left out for a bare tool name. The output
// is deterministic. A nil *Names writes an empty table.
func (n *Names) MarshalJSON() ([]byte, error) {
	t := tableJSON{Version: tableVersion1, Names: []entryJSON{}, Retired: []entryJSON{}}
	if n != nil {
		if m := n.naming; m != nil {
			t.Version, t.Chain, t.Generation = tableVersion, n.chainID, n.gen
			t.Options = &optionsJSON{Profile: m.rule.name, MaxLen: m.maxLen, QualifyAll: m.qualifyAll, Reserved: m.reserved}
			if t.Options.Reserved == nil {
				t.Options.Reserved = []string{}
			}
		}
		for _, k := range n.keys {
			t.Names = append(t.Names, newEntry(k, n.byKey[k]))
		}
		for _, e := range n.retiredSorted() {
			t.Retired = append(t.Retired, newEntry(e.key, e))
		}
	}
	return json.Marshal(t)
}

func newEntry(k Key, e named) entryJSON {
	j := entryJSON{Server: k.Server, Tool: k.Tool, Name: e.name}
	if e.reason != 0 {
		j.Reason = e.reason.String()
	}
	return j
}

// UnmarshalJSON reads a table that [Names.MarshalJSON] wrote into n. It
// replaces n's contents; call it on a new Names, before sharing it.
//
// It accepts only what MarshalJSON can write: the version it writes, no
// unknown members, keys that [Assign] accepts, names valid under the [MCP]
// profile (which every profile's names are), reasons that String writes,
// a reason exactly when the name is not the tool name, and no key or name
// listed twice. Anything else is an [*Error] with Code [CodeInvalidNames],
// and n is left as it was: a damaged table is reported, never read as an
// empty one, which would rename every tool. The names are not checked
// against a profile: [Assign] with [WithPrevious] renames the ones that
// are not valid under its profile. Nor can UnmarshalJSON tell whether each
// name is the one Assign gave its key: keep the file where only the
// gateway writes it.
func (n *Names) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var t tableJSON
	if err := dec.Decode(&t); err != nil {
		return namesError("bad JSON", -1, "", "", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return namesError("text after the table", -1, "", "", nil)
	}
	out := &Names{
		byKey:  make(map[Key]named, len(t.Names)),
		byName: make(map[string]Key, len(t.Names)),
	}
	if err := t.readChain(out); err != nil {
		return err
	}
	for i, j := range t.Names {
		k, e, err := j.read("names", i)
		if err != nil {
			return err
		}
		if _, dup := out.byKey[k]; dup {
			return namesError("names entry repeats a key", i, "tool", k.Tool, nil)
		}
		if _, dup := out.byName[e.name]; dup {
			return namesError("names entry repeats a name", i, "name", e.name, nil)
		}
		if m := out.naming; m != nil && !m.allows(e.name) {
			return namesError("names entry has a name that the chain's options do not allow", i, "name", e.name, nil)
		}
		out.keys = append(out.keys, k)
		out.byKey[k] = e
		out.byName[e.name] = k
		if e.reason != 0 {
			out.fallbacks = append(out.fallbacks, Fallback{Key: k, Name: e.name, Reason: e.reason})
		}
	}
	for i, j := range t.Retired {
		k, e, err := j.read("retired", i)
		if err != nil {
			return err
		}
		if out.held(e.name) {
			return namesError("retired entry repeats a name", i, "name", e.name, nil)
		}
		if out.retired == nil {
			out.retired = newRetiredStore(out.gen)
		}
		out.retired.retire(e.name, named{key: k, reason: e.reason}, 0)
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

// readChain checks the version and the chain's identity and options, and
// sets them in out: a version 2 table records all of them, a version 1
// table none.
func (t *tableJSON) readChain(out *Names) error {
	switch t.Version {
	case tableVersion1:
		if t.Chain != "" || t.Generation != 0 || t.Options != nil {
			return namesError("version 1 table with a chain", -1, "version", strconv.Itoa(t.Version), nil)
		}
		return nil
	case tableVersion:
	default:
		return namesError("unknown version", -1, "version", strconv.Itoa(t.Version), nil)
	}
	if !validChainID(t.Chain) {
		return namesError("chain id is not 32 lower-case hex digits", -1, "chain", t.Chain, nil)
	}
	if t.Generation == 0 {
		return namesError("generation is not positive", -1, "generation", "0", nil)
	}
	o := t.Options
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
	for i, name := range o.Reserved {
		if !r.valid(name, o.MaxLen) || i > 0 && o.Reserved[i-1] >= name {
			return namesError("reserved names are not valid, sorted and distinct", i, "reserved", name, nil)
		}
	}
	out.chainID, out.gen = t.Chain, t.Generation
	out.naming = &naming{rule: r, maxLen: o.MaxLen, qualifyAll: o.QualifyAll, reserved: o.Reserved}
	return nil
}

// read checks one entry of list and returns its key, and its name with
// the reason.
func (j entryJSON) read(list string, i int) (Key, named, error) {
	k := Key{Server: j.Server, Tool: j.Tool}
	if badField(k.Server) != validField {
		return k, named{}, namesError(list+" entry has an empty or invalid server", i, "server", k.Server, nil)
	}
	if badField(k.Tool) != validField {
		return k, named{}, namesError(list+" entry has an empty or invalid tool", i, "tool", k.Tool, nil)
	}
	if !mcpRule.valid(j.Name, mcpRule.maxLen) {
		return k, named{}, namesError(list+" entry has a name that is not a valid MCP tool name", i, "name", j.Name, nil)
	}
	reason, ok := parseReason(j.Reason)
	if !ok || j.Reason == "none" {
		return k, named{}, namesError(list+" entry has an unknown reason", i, "reason", j.Reason, nil)
	}
	if (reason == 0) != (j.Name == k.Tool) {
		return k, named{}, namesError(list+" entry has a reason that disagrees with its name (a reason is given exactly when the name is not the tool name)", i, "reason", j.Reason, nil)
	}
	if !strings.Contains(j.Name, "__") && j.Name != k.Tool {
		// Assign gives a bare name only as a key's own tool name: a
		// look-alike could take another key's name.
		return k, named{}, namesError(list+" entry has a bare name that is not its own tool name", i, "name", j.Name, nil)
	}
	if strings.Contains(j.Name, "__") && reason&Qualified == 0 {
		// Assign gives a name holding "__" only as a key's own
		// qualified name: a bare one could impersonate another key.
		return k, named{}, namesError(list+" entry has a name holding \"__\" that is not qualified", i, "name", j.Name, nil)
	}
	return k, named{name: j.Name, reason: reason}, nil
}

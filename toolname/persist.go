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

// tableVersion is the version of the JSON form of a Names table.
const tableVersion = 1

// tableJSON is the JSON form of a Names table.
type tableJSON struct {
	Version int         `json:"version"`
	Names   []entryJSON `json:"names"`
	Retired []entryJSON `json:"retired"`
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
	t := tableJSON{Version: tableVersion, Names: []entryJSON{}, Retired: []entryJSON{}}
	if n != nil {
		for _, k := range n.keys {
			t.Names = append(t.Names, newEntry(k, n.byKey[k]))
		}
		n.retired.all(n.gen, func(name string, e named) {
			e.name = name
			t.Retired = append(t.Retired, newEntry(e.key, e))
		})
		slices.SortFunc(t.Retired, func(a, b entryJSON) int { return strings.Compare(a.Name, b.Name) })
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
	if t.Version != tableVersion {
		return namesError("unknown version", -1, "version", strconv.Itoa(t.Version), nil)
	}
	out := &Names{
		byKey:  make(map[Key]named, len(t.Names)),
		byName: make(map[string]Key, len(t.Names)),
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
			out.retired = newRetiredStore()
		}
		out.retired.retire(e.name, named{key: k, reason: e.reason}, 0)
	}
	slices.SortFunc(out.keys, compareKeys)
	slices.SortFunc(out.fallbacks, func(a, b Fallback) int { return strings.Compare(a.Name, b.Name) })
	out.indexTools()
	*n = *out
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

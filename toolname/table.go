package toolname

import (
	"iter"
	"slices"
)

// Table holds the model-facing names that [Assign] built: every key
// to its name and every name back to its key, with the names the chain
// retired. It is immutable and safe for concurrent use; a nil *Table holds
// no names.
type Table struct {
	keys      []Key // the keys named, sorted
	byKey     map[Key]named
	byName    map[string]Key
	byTool    map[string][]Key // the live keys of each own tool name, sorted
	fallbacks []Fallback       // sorted by name
	// retired holds the names of the chain that no key holds in this
	// table, with the key that last held each: those of the store at
	// generation gen, or at gen-1 with change on top (see retired.go).
	// The store is shared along the chain.
	retired *retiredStore
	change  *change
	gen     uint64
	chainID string  // see Chain
	naming  *naming // nil for a version 1 table, which records none
}

// named is a name with the key or reason that goes with it.
type named struct {
	name   string
	key    Key
	reason Reason
}

// Name returns the name assigned to k, and reports whether k is a live
// key of the table. It does not allocate.
func (n *Table) Name(k Key) (string, bool) {
	if n == nil {
		return "", false
	}
	e, ok := n.byKey[k]
	return e.name, ok
}

// Key returns the key whose name in the table is name, and reports whether
// there is one: the inverse of [Table.Name], an exact lookup, never a
// parse. A retired name has no key. It does not allocate.
func (n *Table) Key(name string) (Key, bool) {
	if n == nil {
		return Key{}, false
	}
	k, ok := n.byName[name]
	return k, ok
}

// Route returns the key that a call of name goes to: the key [Table.Key]
// finds, or else the one live key whose own tool name (a downstream's bare
// name) is name, byte for byte. Several such keys are [ErrAmbiguousTool],
// none [ErrUnknownTool].
func (n *Table) Route(name string) (Key, error) {
	if k, ok := n.Key(name); ok {
		return k, nil
	}
	if n == nil || n.isRetired(name) {
		return Key{}, &Error{Code: CodeUnknownTool, Index: -1, Offset: -1, Input: name}
	}
	switch keys := n.byTool[name]; len(keys) {
	case 0:
		return Key{}, &Error{Code: CodeUnknownTool, Index: -1, Offset: -1, Input: name}
	case 1:
		return keys[0], nil
	default:
		e := &Error{Code: CodeAmbiguousTool, Index: -1, Offset: -1, Input: name}
		for _, k := range keys {
			e.Available = append(e.Available, n.byKey[k].name)
		}
		slices.Sort(e.Available)
		return Key{}, e
	}
}

// indexTools builds byTool from keys, which must be sorted.
func (n *Table) indexTools() {
	n.byTool = make(map[string][]Key, len(n.keys))
	for _, k := range n.keys {
		n.byTool[k.Tool] = append(n.byTool[k.Tool], k)
	}
}

// isRetired reports whether name is a name of the chain that no live key
// holds.
func (n *Table) isRetired(name string) bool {
	_, ok := n.retiredLookup(name)
	return ok
}

// Len returns the number of distinct keys, which is also the number of
// names.
func (n *Table) Len() int {
	if n == nil {
		return 0
	}
	return len(n.keys)
}

// All returns every key with its name. Keys come in order of server and
// then tool, compared byte for byte.
func (n *Table) All() iter.Seq2[Key, string] {
	return func(yield func(Key, string) bool) {
		if n == nil {
			return
		}
		for _, k := range n.keys {
			if !yield(k, n.byKey[k].name) {
				return
			}
		}
	}
}

// Fallbacks returns every key whose name is not its bare tool name. They
// come sorted by name, with the reasons why. The slice is a fresh copy.
func (n *Table) Fallbacks() []Fallback {
	if n == nil {
		return nil
	}
	return slices.Clone(n.fallbacks)
}

// held reports whether name is or was the name of some key in n's chain.
func (n *Table) held(name string) bool {
	if n == nil {
		return false
	}
	if _, ok := n.byName[name]; ok {
		return true
	}
	return n.isRetired(name)
}

package toolname

import (
	"iter"
	"slices"
)

// Names is the table of model-facing names that [Assign] built. It maps
// every key to its name and every name back to its key; names are looked
// up, never parsed. It also remembers the names of the chain it continues
// (see [WithPrevious]) that no key holds any more, so that they are never
// given to another key; that memory grows with the number of distinct keys
// ever seen, and [Names.MarshalJSON] keeps it across restarts.
//
// A Names is immutable once built, and safe for concurrent use. A nil
// *Names holds no names.
type Names struct {
	keys      []Key // the keys named, sorted
	byKey     map[Key]named
	byName    map[string]Key
	fallbacks []Fallback       // sorted by name
	retired   map[string]named // names no key holds now, with the key that last held them
}

// named is a name with the key or reason that goes with it.
type named struct {
	name   string
	key    Key
	reason Reason
}

// Name returns the name assigned to k and reports whether k was among the
// keys given to [Assign]. A key that has left the chain reports false. It
// does not allocate.
func (n *Names) Name(k Key) (string, bool) {
	if n == nil {
		return "", false
	}
	e, ok := n.byKey[k]
	return e.name, ok
}

// Resolve returns the key whose name is name, and reports whether there is
// one. It is a table lookup: a name that [Assign] did not hand out, or that
// belonged to a key that has left, resolves to nothing, however it is
// spelled. It does not allocate.
func (n *Names) Resolve(name string) (Key, bool) {
	if n == nil {
		return Key{}, false
	}
	k, ok := n.byName[name]
	return k, ok
}

// Len returns the number of distinct keys, which is also the number of
// names.
func (n *Names) Len() int {
	if n == nil {
		return 0
	}
	return len(n.keys)
}

// All returns every key with its name, keys in order of server and then
// tool, compared byte for byte.
func (n *Names) All() iter.Seq2[Key, string] {
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

// Fallbacks returns, sorted by name, every key whose name is not its bare
// tool name, with the reasons why. The slice is a fresh copy.
func (n *Names) Fallbacks() []Fallback {
	if n == nil {
		return nil
	}
	return slices.Clone(n.fallbacks)
}

// held reports whether name is or was the name of some key in n's chain.
func (n *Names) held(name string) bool {
	if n == nil {
		return false
	}
	if _, ok := n.byName[name]; ok {
		return true
	}
	_, ok := n.retired[name]
	return ok
}

package toolname

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"slices"
	"strconv"
	"strings"
)

// chainIDLen is the length of a chain id: 128 bits in lower-case hex,
// enough that two chains started anywhere never share an id.
const chainIDLen = 32

// newChainID returns a random chain id, for a chain's first table.
func newChainID() string {
	var b [chainIDLen / 2]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it crashes the program instead)
	return hex.EncodeToString(b[:])
}

// validChainID reports whether id has the form of a chain id.
func validChainID(id string) bool {
	if len(id) != chainIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Chain returns the id of the chain n belongs to and n's generation in it.
// A nil *Table returns "" and 0.
func (n *Table) Chain() (id string, generation uint64) {
	if n == nil {
		return "", 0
	}
	return n.chainID, n.gen
}

// naming is what shapes a chain's names beyond its keys: the options that
// a chain records so that [Update] can refuse different ones.
type naming struct {
	rule       *rule
	maxLen     int
	qualifyAll bool
	reserved   []string // sorted and distinct
}

// newNaming returns the naming of an assignment under r and maxLen with
// options o.
func newNaming(r *rule, maxLen int, o *options) *naming {
	reserved := slices.Clone(o.reserved)
	slices.Sort(reserved)
	return &naming{rule: r, maxLen: maxLen, qualifyAll: o.qualifyAll, reserved: slices.Compact(reserved)}
}

// equal reports whether m and o shape names alike.
func (m *naming) equal(o *naming) bool {
	return m.rule == o.rule && m.maxLen == o.maxLen && m.qualifyAll == o.qualifyAll && slices.Equal(m.reserved, o.reserved)
}

// allows reports whether a live name of a table with the naming m is
// valid under its profile and not reserved.
func (m *naming) allows(name string) bool {
	_, reserved := slices.BinarySearch(m.reserved, name)
	return m.rule.valid(name, m.maxLen) && !reserved
}

// String describes m for an error, for example
// "profile=Portable MaxLen=63 QualifyAll=false Reserved=[help]".
func (m *naming) String() string {
	return "profile=" + m.rule.name + " MaxLen=" + strconv.Itoa(m.maxLen) +
		" QualifyAll=" + strconv.FormatBool(m.qualifyAll) +
		" Reserved=[" + strings.Join(m.reserved, ",") + "]"
}

// contentID derives the chain id of a version 1 table from its names and
// retired names, in the order MarshalJSON writes them, so that every load
// of one table gives one id, however the text was laid out.
func (n *Table) contentID() string {
	h := sha256.New()
	write := func(k Key, name string, reason Reason) {
		writeField(h, k.Server)
		writeField(h, k.Tool)
		writeField(h, name)
		h.Write([]byte{byte(reason)})
	}
	for _, k := range n.keys {
		e := n.byKey[k]
		write(k, e.name, e.reason)
	}
	h.Write([]byte{0xff}) // between the live names and the retired ones
	for _, r := range n.retiredSorted() {
		write(r.key, r.name, r.reason)
	}
	return hex.EncodeToString(h.Sum(nil)[:chainIDLen/2])
}

// writeField writes s to h preceded by its length, so that no two lists of
// fields hash alike.
func writeField(h hash.Hash, s string) {
	var l [binary.MaxVarintLen64]byte
	h.Write(l[:binary.PutUvarint(l[:], uint64(len(s)))])
	_, _ = io.WriteString(h, s)
}

// retiredSorted returns the retired names of n's generation with their
// keys, sorted by name.
func (n *Table) retiredSorted() []named {
	var out []named
	n.retiredAll(func(name string, e named) {
		e.name = name
		out = append(out, e)
	})
	slices.SortFunc(out, func(a, b named) int { return strings.Compare(a.name, b.name) })
	return out
}

package toolname

import (
	"strconv"
	"strings"
)

// Reason tells why a key's name differs from its tool name. It is a set of
// flags, set by [Assign]. The zero Reason means the name is the tool name
// itself.
type Reason uint8

// The reasons, as bits of a [Reason].
const (
	// Qualified: the name is built from "server__tool", because more than
	// one server offers a tool of this name, because the tool name holds
	// "__" (raw or once folded), because the bare tool name is taken or
	// reserved, or because [WithQualifyAll] asks for it.
	Qualified Reason = 1 << iota

	// Folded: characters the profile does not allow were folded to ASCII
	// or replaced by '_', or a '_' was put in front to give the name the
	// leading letter or underscore the profile requires.
	Folded

	// Shortened: the name would have been longer than the profile's
	// MaxLen, so it was cut to fit and ends in a hash suffix.
	Shortened

	// Rehashed: the name ends in a hash suffix because, without one, it
	// would equal a name that another key holds or held, or a reserved
	// name; because folding left no ASCII letter or digit of the tool
	// name; or because, under [WithQualifyAll], it was folded or its
	// server name could be read as part of another key's name.
	Rehashed
)

// reasonNames names the flags in the order String writes them.
var reasonNames = [...]struct {
	bit  Reason
	name string
}{
	{Qualified, "qualified"},
	{Folded, "folded"},
	{Shortened, "shortened"},
	{Rehashed, "rehashed"},
}

// String returns the names of the flags in r, joined by '|'. They come in
// the order Qualified, Folded, Shortened, Rehashed (for example
// "qualified|shortened"); the zero Reason is "none".
func (r Reason) String() string {
	if r == 0 {
		return "none"
	}
	var b strings.Builder
	for _, f := range reasonNames {
		if r&f.bit != 0 {
			if b.Len() > 0 {
				b.WriteByte('|')
			}
			b.WriteString(f.name)
			r &^= f.bit
		}
	}
	if r != 0 {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString("0x")
		b.WriteString(strconv.FormatUint(uint64(r), 16))
	}
	return b.String()
}

// parseReason is the inverse of String for the reasons Assign gives: known
// flags, each once, in String's order. "" and "none" are the zero Reason.
func parseReason(s string) (Reason, bool) {
	if s == "" || s == "none" {
		return 0, true
	}
	var r Reason
	next := 0 // the first flag still allowed, to keep String's order
	for part := range strings.SplitSeq(s, "|") {
		found := false
		for i := next; i < len(reasonNames); i++ {
			if reasonNames[i].name == part {
				r |= reasonNames[i].bit
				next, found = i+1, true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
	return r, true
}

// A Fallback records a key whose name is not its bare tool name.
type Fallback struct {
	Key    Key
	Name   string
	Reason Reason
}

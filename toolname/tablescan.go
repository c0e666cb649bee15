package toolname

import (
	"strconv"

	"github.com/mcpid/mcpid/internal/jsonlit"
)

// tableScan reads the JSON form of a table, which must be valid JSON (the
// caller checks it with json.Valid), member by member. It is a scanner of
// its own for what it was measured to save: a table of 100,000 names is
// several MB, and reading it through encoding/json's reflection into
// structs, then into the table's maps, allocated 14 to 19 bytes for each
// byte of input, where the scan allocates about 3
// (BenchmarkUnmarshalLongTable). It allocates nothing but the strings that
// hold escapes: every other string it returns is a substring of text, one
// copy of the whole input, which the table then shares.
//
// It accepts only the members MarshalJSON writes, each at most once, with
// the JSON types MarshalJSON gives them; anything else is an error.
type tableScan struct {
	data []byte
	text string // string(data), of which the scanned strings are substrings
	pos  int
}

// scannedTable is a table's header, as scanned, and the lists it holds.
type scannedTable struct {
	version, generation uint64
	chain               string
	options             *optionsJSON
	identity            bool // "chain" or "generation" was there
	names, retired      bool // the members were there
}

// scannedEntry is one entry of "names" or "retired".
type scannedEntry struct {
	server, tool, name, reason string
}

// lists names the two lists of entries, for errors.
var lists = [...]string{"names", "retired"}

// scan reads the whole table and calls entry for every entry of "names"
// (list 0) and "retired" (list 1), with its index in its list.
func (s *tableScan) scan(entry func(list, i int, e scannedEntry) error) (scannedTable, error) {
	var t scannedTable
	s.pos = 0
	if s.literal("null") {
		return t, nil // encoding/json's zero table: its version is refused
	}
	err := s.object("table", func(member string) error {
		switch member {
		case "version":
			return s.uint(member, &t.version)
		case "chain":
			t.identity = true
			return s.string(member, &t.chain)
		case "generation":
			t.identity = true
			return s.uint(member, &t.generation)
		case "options":
			t.options = new(optionsJSON)
			return s.options(t.options)
		case "names", "retired":
			list := 0
			if member == "retired" {
				list = 1
			}
			t.names = t.names || list == 0
			t.retired = t.retired || list == 1
			i := 0
			return s.array(member, func() error {
				e, err := s.entry(list, i)
				if err == nil {
					err = entry(list, i, e)
				}
				i++
				return err
			})
		}
		return errUnknownMember
	})
	return t, err
}

// errUnknownMember is what a member's reader returns for a member it does
// not know; object turns it into the error.
var errUnknownMember = namesError("", -1, "", "", nil)

// options reads the options of a version 2 table.
func (s *tableScan) options(o *optionsJSON) error {
	return s.object("options", func(member string) error {
		switch member {
		case "profile":
			return s.string(member, &o.Profile)
		case "max_len":
			var v uint64
			err := s.uint(member, &v)
			o.MaxLen = int(min(v, 1<<20))
			return err
		case "qualify_all":
			return s.bool(member, &o.QualifyAll)
		case "reserved":
			o.Reserved = []string{}
			return s.array(member, func() error {
				var name string
				err := s.string(member, &name)
				o.Reserved = append(o.Reserved, name)
				return err
			})
		}
		return errUnknownMember
	})
}

// entry reads one entry of list.
func (s *tableScan) entry(list, i int) (scannedEntry, error) {
	var e scannedEntry
	err := s.object(lists[list]+" entry", func(member string) error {
		switch member {
		case "server":
			return s.string(member, &e.server)
		case "tool":
			return s.string(member, &e.tool)
		case "name":
			return s.string(member, &e.name)
		case "reason":
			return s.string(member, &e.reason)
		}
		return errUnknownMember
	})
	if ne, ok := err.(*Error); ok && ne.Index < 0 {
		ne.Index = i
	}
	return e, err
}

// object reads an object, calling member for each member with the
// position at its value; a member seen twice is an error.
func (s *tableScan) object(what string, member func(name string) error) error {
	s.space()
	if !s.byte('{') {
		return namesError(what+" is not a JSON object", -1, "", "", nil)
	}
	var seen [8]string // no object of the form has more members
	n := 0
	for s.space(); !s.byte('}'); s.space() {
		if n > 0 && !s.byte(',') {
			return namesError(what+" is not a JSON object", -1, "", "", nil) // unreachable on valid JSON
		}
		s.space()
		name, err := s.str()
		if err != nil {
			return err
		}
		for _, m := range seen[:min(n, len(seen))] {
			if m == name {
				return namesError(what+" has a member twice", -1, name, "", nil)
			}
		}
		if n < len(seen) {
			seen[n] = name
		}
		n++
		s.space()
		s.byte(':')
		if err := member(name); err != nil {
			if err == errUnknownMember {
				return namesError(what+" has a member that MarshalJSON does not write", -1, "", name, nil)
			}
			return err
		}
	}
	return nil
}

// array reads an array, calling item with the position at each item.
func (s *tableScan) array(member string, item func() error) error {
	s.space()
	if !s.byte('[') {
		return namesError("member is not a JSON array", -1, member, "", nil)
	}
	for s.space(); !s.byte(']'); s.space() {
		if s.byte(',') {
			s.space()
		}
		if err := item(); err != nil {
			return err
		}
	}
	return nil
}

// string reads the string value of member into v.
func (s *tableScan) string(member string, v *string) error {
	s.space()
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return namesError("member is not a JSON string", -1, member, "", nil)
	}
	str, err := s.str()
	*v = str
	return err
}

// str reads a JSON string. Without escapes, it is a substring of text,
// byte for byte.
func (s *tableScan) str() (string, error) {
	start := s.pos
	end, escaped, ok := jsonlit.End(s.text, start)
	s.pos = end
	if ok && !escaped {
		return s.text[start+1 : end-1], nil
	}
	v, ok := jsonlit.Unquote(s.data[start:end])
	if !ok {
		return "", namesError("bad JSON string", -1, "", "", nil) // not on valid JSON
	}
	return v, nil
}

// uint reads the value of member, a JSON number that must be a
// non-negative integer, into v.
func (s *tableScan) uint(member string, v *uint64) error {
	s.space()
	start := s.pos
	for s.pos < len(s.data) && (s.data[s.pos] >= '0' && s.data[s.pos] <= '9' || s.data[s.pos] == '-' ||
		s.data[s.pos] == '.' || s.data[s.pos] == 'e' || s.data[s.pos] == 'E' || s.data[s.pos] == '+') {
		s.pos++
	}
	n, err := strconv.ParseUint(s.text[start:s.pos], 10, 64)
	if err != nil || start == s.pos {
		return namesError("member is not a non-negative integer", -1, member, s.text[start:s.pos], nil)
	}
	*v = n
	return nil
}

// bool reads the value of member, true or false, into v.
func (s *tableScan) bool(member string, v *bool) error {
	s.space()
	switch {
	case s.literal("true"):
		*v = true
	case s.literal("false"):
		*v = false
	default:
		return namesError("member is not true or false", -1, member, "", nil)
	}
	return nil
}

// literal reads word if it comes next.
func (s *tableScan) literal(word string) bool {
	s.space()
	if len(s.text)-s.pos >= len(word) && s.text[s.pos:s.pos+len(word)] == word {
		s.pos += len(word)
		return true
	}
	return false
}

// byte reads c if it comes next.
func (s *tableScan) byte(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// space skips JSON white space.
func (s *tableScan) space() { s.pos = jsonlit.SkipSpace(s.data, s.pos) }

package toolname

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// MarshalJSON writes the whole table, every name the chain ever gave
// included; [Table.UnmarshalJSON] gives back an equal table. The output
// is deterministic.
func (n *Table) MarshalJSON() ([]byte, error) {
	if n == nil {
		return []byte(`{"version":1,"names":[],"retired":[]}`), nil
	}
	retired := make([]string, 0, n.retiredCap())
	n.retiredAll(func(name string, _ named) { retired = append(retired, name) })
	slices.Sort(retired)

	size := 256
	for _, k := range n.keys {
		size += len(k.Server) + len(k.Tool) + len(n.byKey[k].name) + entryOverhead
	}
	size += len(retired) * (entryOverhead + retiredStrings)
	b := make([]byte, 0, size)
	b = append(b, `{"version":`...)
	if m := n.naming; m != nil {
		b = strconv.AppendInt(b, tableVersion, 10)
		b = append(b, `,"chain":`...)
		b = appendJSONString(b, n.chainID)
		b = append(b, `,"generation":`...)
		b = strconv.AppendUint(b, n.gen, 10)
		b = append(b, `,"options":{"profile":`...)
		b = appendJSONString(b, m.rule.name)
		b = append(b, `,"max_len":`...)
		b = strconv.AppendInt(b, int64(m.maxLen), 10)
		b = append(b, `,"qualify_all":`...)
		b = strconv.AppendBool(b, m.qualifyAll)
		b = append(b, `,"reserved":[`...)
		for i, name := range m.reserved {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, name)
		}
		b = append(b, "]}"...)
	} else {
		b = strconv.AppendInt(b, tableVersion1, 10)
	}
	b = append(b, `,"names":[`...)
	for i, k := range n.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEntry(b, k, n.byKey[k])
	}
	b = append(b, `],"retired":[`...)
	for i, name := range retired {
		if i > 0 {
			b = append(b, ',')
		}
		e, _ := n.retiredLookup(name)
		e.name = name
		b = appendEntry(b, e.key, e)
	}
	return append(b, "]}"...), nil
}

// entryOverhead is the length of an entry's JSON beyond its strings, with
// room for a reason.
const entryOverhead = len(`{"server":"","tool":"","name":"","reason":"qualified|folded|shortened|rehashed"},`)

// retiredStrings is a guess at the length of a retired entry's server,
// tool and name together, for sizing: a retired entry is not looked up
// twice.
const retiredStrings = 48

// appendEntry appends the JSON of k named e.
func appendEntry(b []byte, k Key, e named) []byte {
	b = append(b, `{"server":`...)
	b = appendJSONString(b, k.Server)
	b = append(b, `,"tool":`...)
	b = appendJSONString(b, k.Tool)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, e.name)
	if e.reason != 0 {
		b = append(b, `,"reason":`...)
		b = appendJSONString(b, e.reason.String())
	}
	return append(b, '}')
}

// appendJSONString appends s as a JSON string, escaped exactly as
// encoding/json escapes it: '"', '\\' and the control characters, '<',
// '>' and '&' (as \u003c, \u003e, \u0026), U+2028 and U+2029, and each
// byte of invalid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

package toolname

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Key identifies one tool: the server that offers it and the tool's own
// name on that server, both as the server reported them. Key is comparable
// and can be used as a map key.
type Key struct {
	Server string
	Tool   string
}

func compareKeys(a, b Key) int {
	if c := strings.Compare(a.Server, b.Server); c != 0 {
		return c
	}
	return strings.Compare(a.Tool, b.Tool)
}

// Reason is a set of flags that tell why the name [Assign] gave a key
// differs from the key's tool name. The zero Reason means the name is the
// tool name itself.
type Reason uint8

// The reasons, as bits of a [Reason].
const (
	// Qualified: more than one server offers a tool of this name, so the
	// name is built from "server__tool".
	Qualified Reason = 1 << iota

	// Folded: characters the profile does not allow were folded to ASCII
	// or replaced by '_', or a '_' was put in front to give the name the
	// leading letter or underscore the profile requires.
	Folded

	// Shortened: the name would have been longer than the profile's
	// MaxLen, so it was cut to fit and ends in a hash suffix.
	Shortened

	// Rehashed: the name ends in a hash suffix because, without one, it
	// would equal another key's name, or because folding left no ASCII
	// letter or digit of the tool name.
	Rehashed
)

// String returns the names of the flags in r, in the order Qualified,
// Folded, Shortened, Rehashed, joined by '|' (for example
// "qualified|shortened"), or "none" for the zero Reason.
func (r Reason) String() string {
	if r == 0 {
		return "none"
	}
	var b strings.Builder
	for _, f := range [...]struct {
		bit  Reason
		name string
	}{
		{Qualified, "qualified"},
		{Folded, "folded"},
		{Shortened, "shortened"},
		{Rehashed, "rehashed"},
	} {
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

// A Fallback records a key whose name is not its bare tool name.
type Fallback struct {
	Key    Key
	Name   string
	Reason Reason
}

// An Option configures [Assign]. The zero Option does nothing.
type Option struct {
	apply func(*options)
}

type options struct {
	logger *slog.Logger
}

// WithLogger makes [Assign] log every fallback to logger: one record at
// level Info per key whose name is not its bare tool name, in the order of
// [Names.Fallbacks], with the attributes "server", "tool", "name" and
// "reason" (the [Reason] as a string). A nil logger logs nothing.
func WithLogger(logger *slog.Logger) Option {
	return Option{apply: func(o *options) { o.logger = logger }}
}

// Names is the table of model-facing names that [Assign] built. It maps
// every key to its name and every name back to its key; names are looked
// up, never parsed. A Names is immutable and safe for concurrent use. A nil
// *Names holds no names.
type Names struct {
	byKey     map[Key]string
	byName    map[string]Key
	fallbacks []Fallback
}

// Name returns the name assigned to k and reports whether k was among the
// keys given to [Assign]. It does not allocate.
func (n *Names) Name(k Key) (string, bool) {
	if n == nil {
		return "", false
	}
	name, ok := n.byKey[k]
	return name, ok
}

// Resolve returns the key whose name is name, and reports whether there is
// one. It is a table lookup: a name that [Assign] did not hand out resolves
// to nothing, however it is spelled. It does not allocate.
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
	return len(n.byKey)
}

// Fallbacks returns, sorted by name, every key whose name is not its bare
// tool name, with the reasons why. The slice is a fresh copy.
func (n *Names) Fallbacks() []Fallback {
	if n == nil {
		return nil
	}
	return slices.Clone(n.fallbacks)
}

// candidates counts the keys whose candidate is one name, and how many of
// them needed no folding.
type candidates struct {
	n, unfolded int
}

// slot is the name being built for one key.
type slot struct {
	name   string
	base   string // for a hashed name: the readable part before cutting
	reason Reason
	bare   bool // the name is the tool name itself
	hashed bool // the name ends in a hash suffix
}

// Assign gives every key a distinct name that is valid under profile.
// Assign returns an [*Error] with Code [CodeInvalidKey] for the first key,
// in the order given, whose server or tool is empty or not valid UTF-8, and
// one with Code [CodeInvalidProfile] when profile.MaxLen is positive but
// below 11. Duplicate keys are merged; the order of keys does not matter.
//
// The package documentation describes the naming scheme; in short:
//
//   - a tool name that exactly one key carries and that is valid under the
//     profile is used as it is;
//   - otherwise the name is built from the tool name, or from
//     "server__tool" when several servers offer a tool of that name, folded
//     into the profile's alphabet;
//   - a name that is too long, that would collide with another name, or
//     whose tool part folding left without a letter or digit ends in a '_'
//     and a 10-character hash of the raw server and tool.
//
// Every such fallback is listed by [Names.Fallbacks] and logged to the
// logger given by [WithLogger], if any.
func Assign(profile Profile, keys []Key, opts ...Option) (*Names, error) {
	var o options
	for _, opt := range opts {
		if opt.apply != nil {
			opt.apply(&o)
		}
	}
	if profile.MaxLen > 0 && profile.MaxLen < minMaxLen {
		return nil, profileError(profile.MaxLen)
	}
	r, maxLen := profile.effective()
	for i, k := range keys {
		if err := checkKeyField(i, "server", k.Server); err != nil {
			return nil, err
		}
		if err := checkKeyField(i, "tool", k.Tool); err != nil {
			return nil, err
		}
	}

	// Work on the sorted, duplicate-free set, so that nothing below
	// depends on the order of keys.
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, compareKeys)
	sorted = slices.Compact(sorted)

	carriers := make(map[string]int, len(sorted))
	for _, k := range sorted {
		carriers[k.Tool]++
	}

	// Pass 1: keep bare names; build the folded candidate of every other
	// key, and mark the ones that need a hash whatever the other names.
	slots := make([]slot, len(sorted))
	byName := make(map[string]Key, len(sorted))
	var plain map[string]candidates
	var buf []byte
	for i, k := range sorted {
		s := &slots[i]
		unique := carriers[k.Tool] == 1
		if unique && r.valid(k.Tool, maxLen) {
			s.name = k.Tool
			s.bare = true
			byName[k.Tool] = k
			continue
		}
		buf = buf[:0]
		start := 0 // where the folded tool starts in buf
		if unique {
			buf = r.appendFolded(buf, k.Tool)
			if string(buf) != k.Tool {
				s.reason |= Folded
			}
		} else {
			s.reason |= Qualified
			buf = r.appendFolded(buf, k.Server)
			changed := string(buf) != k.Server
			buf = append(buf, "__"...)
			start = len(buf)
			buf = r.appendFolded(buf, k.Tool)
			if changed || string(buf[start:]) != k.Tool {
				s.reason |= Folded
			}
		}
		if r.lead && (len(buf) == 0 || !isLead(buf[0])) {
			s.reason |= Folded
			buf = append(buf, 0)
			copy(buf[1:], buf)
			buf[0] = '_'
			start++
		}
		if !readable(buf[start:]) {
			// Nothing of the tool name survived folding: the hash
			// stands in for it.
			s.reason |= Rehashed
			s.hashed = true
			if !unique {
				s.base = string(buf[:start-1]) // "server_"
			}
			continue
		}
		if len(buf) > maxLen {
			s.reason |= Shortened
			s.hashed = true
			s.base = string(buf)
			continue
		}
		s.name = string(buf)
		if plain == nil {
			plain = make(map[string]candidates)
		}
		c := plain[s.name]
		c.n++
		if s.reason&Folded == 0 {
			c.unfolded++
		}
		plain[s.name] = c
	}

	// Pass 2: a candidate that equals a bare name gets a hash. So do
	// candidates that equal each other, except that when exactly one of
	// them needed no folding, that one keeps its name. The others are
	// final.
	for i := range slots {
		s := &slots[i]
		if s.bare || s.hashed {
			continue
		}
		_, taken := byName[s.name]
		if c := plain[s.name]; taken || c.n > 1 && (c.unfolded != 1 || s.reason&Folded != 0) {
			s.reason |= Rehashed
			s.hashed = true
			s.base, s.name = s.name, ""
			continue
		}
		byName[s.name] = sorted[i]
	}

	// Pass 3: hashed names, in key order. Should a hashed name still be
	// taken (two 50-bit hashes that agree, or a bare name that happens to
	// look like a hashed one), the hash is salted until the name is free.
	for i := range slots {
		s := &slots[i]
		if !s.hashed {
			continue
		}
		prefix := s.base
		if cut := maxLen - minMaxLen; len(prefix) > cut {
			prefix = prefix[:cut]
			s.reason |= Shortened
		}
		for salt := uint64(0); ; salt++ {
			buf = append(buf[:0], prefix...)
			buf = append(buf, '_')
			buf = appendHash(buf, sorted[i], salt)
			if _, taken := byName[string(buf)]; !taken {
				break
			}
			s.reason |= Rehashed
		}
		s.name = string(buf)
		s.base = ""
		byName[s.name] = sorted[i]
	}

	n := &Names{
		byKey:  make(map[Key]string, len(sorted)),
		byName: byName,
	}
	for i, k := range sorted {
		s := &slots[i]
		n.byKey[k] = s.name
		if s.reason != 0 {
			n.fallbacks = append(n.fallbacks, Fallback{Key: k, Name: s.name, Reason: s.reason})
		}
	}
	slices.SortFunc(n.fallbacks, func(a, b Fallback) int { return strings.Compare(a.Name, b.Name) })
	if o.logger != nil {
		for _, f := range n.fallbacks {
			o.logger.LogAttrs(context.Background(), slog.LevelInfo, "toolname: fallback name",
				slog.String("server", f.Key.Server),
				slog.String("tool", f.Key.Tool),
				slog.String("name", f.Name),
				slog.String("reason", f.Reason.String()),
			)
		}
	}
	return n, nil
}

// checkKeyField returns the error for a key's server or tool that is empty
// or not valid UTF-8, or nil.
func checkKeyField(index int, field, value string) error {
	if value == "" {
		return keyError(index, field, value, -1)
	}
	for i := 0; i < len(value); {
		c := value[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(value[i:])
		if r == utf8.RuneError && size == 1 {
			return keyError(index, field, value, i)
		}
		i += size
	}
	return nil
}

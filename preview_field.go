package mcpid

import "github.com/mcpid/mcpid/internal/weburl"

// The values of a Hit that a field shows.
const (
	valStream = iota
	valConnectorKey
	valDisplayName
	valTitle
	valSnippet
	valURL
)

// hitValue returns the field of h that val names.
func hitValue(h *Hit, val int) *string {
	switch val {
	case valStream:
		return &h.Stream
	case valConnectorKey:
		return &h.ConnectorKey
	case valDisplayName:
		return &h.DisplayName
	case valTitle:
		return &h.Title
	case valSnippet:
		return &h.Snippet
	}
	return &h.URL
}

// field is a free-text field of a hit, in the order a format shows them.
type field struct {
	val  int    // which value of the Hit
	kind int    // which kind of room it takes
	key  string // written before the value; ends with the opening quote unless bare
	// over is the bytes the field adds besides its value: its key and
	// closing quote, or 0 for a field always written, whose key and
	// quotes belong to the hit's mandatory text.
	over  int
	whole bool // shown whole or not at all
	bare  bool // written without quotes: a URL of the text form
}

// always reports whether the field is written even without a value.
func (fd *field) always() bool { return fd.over == 0 }

// optional returns a field written only when it has a value.
func optional(val, kind int, key string) field {
	return field{val: val, kind: kind, key: key, over: len(key) + 1}
}

// value returns the value field val of h shows, or "" when it shows none:
// a title equal to the id says nothing new in the text form, and a URL is
// shown only when it is an absolute http or https URL that fits room, the
// most its field could take (see url).
func (p *preview) value(h *Hit, val, room int) string {
	switch val {
	case valStream:
		return h.Stream
	case valConnectorKey:
		return h.ConnectorKey
	case valDisplayName:
		return h.DisplayName
	case valTitle:
		if p.format == FormatText && len(h.Title) == len(h.ID) {
			p.read += len(h.ID)
			if h.Title == h.ID {
				return ""
			}
		}
		return h.Title
	case valSnippet:
		return h.Snippet
	}
	u, _ := p.url(h.URL, room)
	return u
}

// url returns u when it is an absolute http or https URL that fits room,
// and reports whether it examined u. It examines u only when u fits room
// and p.urlRoom, and takes the bytes of a u it finds invalid out of
// p.urlRoom, so that examining URLs costs no more than the budget however
// many hits hold long ones.
func (p *preview) url(u string, room int) (string, bool) {
	if len(u) > min(room, p.urlRoom) {
		return "", false
	}
	p.read += len(u)
	if !weburl.Valid(u) {
		p.urlRoom -= len(u)
		return "", true
	}
	return u, true
}

// share is the room left to the shared kind while writing, and the
// number of its fields still to write.
type share struct{ room, items int }

// appendFields writes the free-text fields of h, and, when shown is not
// nil, sets its fields to the values written, as a reader of the text
// decodes them.
func (p *preview) appendFields(dst []byte, h *Hit, sh *share, shown *Hit) []byte {
	for _, fd := range p.fields {
		k := fd.kind
		s := ""
		if p.caps[k] >= 0 && k <= p.full {
			room := p.urlLeft - fd.over
			if k == p.full {
				limit, _ := p.fieldLimit(&fd, sh)
				room = limit - fd.over
			}
			s = p.value(h, fd.val, room)
			if fd.val == valURL && k < p.full && s != "" {
				p.urlLeft -= fd.over + len(s)
			}
		}
		kept := 0
		switch {
		case fd.always():
			dst = append(dst, fd.key...)
			if s != "" {
				dst, kept = p.appendValue(dst, &fd, s, sh)
			}
			dst = append(dst, '"')
		case s != "":
			dst, kept = p.appendValue(dst, &fd, s, sh)
		}
		if shown != nil && kept > 0 {
			*hitValue(shown, fd.val) = shownValue(s, kept)
		}
	}
	return dst
}

// appendValue writes a field with value s: for an optional field its key,
// the value and the closing quote, or nothing; for a field always
// written, the value alone. The value is uncut when its kind is shown
// uncut, else cut to the room the shared kind gives it. Each field takes
// at most the level, plus what the fields before it left unused as far as
// the fields after it can still have the level. Without a level, the
// fields take the room in order: the first hits keep useful text rather
// than every hit a stub, and a field cut to less than minShare is left
// out. Nothing is written past the field's room, even for a moment. It
// returns the bytes of s written: len(s) uncut, those before the "…" when
// cut, 0 when none.
func (p *preview) appendValue(dst []byte, fd *field, s string, sh *share) ([]byte, int) {
	limit, minCut := p.fieldLimit(fd, sh)
	mark, read, kept := len(dst), 0, 0
	if limit-fd.over > 0 {
		if !fd.always() {
			dst = append(dst, fd.key...)
		}
		n := len(dst)
		if fd.whole {
			if fd.over+len(s) <= limit {
				dst = append(dst, s...)
				read, kept = len(s), len(s)
			}
		} else {
			dst, read, kept = appendCut(dst, s, limit-fd.over, minCut, escapesFor(p.format))
		}
		switch {
		case len(dst) == n:
			dst, kept = dst[:mark], 0
		case !fd.always() && !fd.bare:
			dst = append(dst, '"')
		}
	}
	p.read += read
	if fd.kind == p.full {
		// A value read and then left out (no boundary to cut at, or a
		// stub) costs the room it read, so that such values cannot make
		// the cost grow past the budget.
		sh.items--
		if len(dst) > mark {
			sh.room -= len(dst) - mark
		} else {
			sh.room -= min(sh.room, read)
		}
	}
	return dst, kept
}

// fieldLimit returns the most bytes the field may take with its key and
// quotes, and the least a cut value may take, as appendValue writes it.
func (p *preview) fieldLimit(fd *field, sh *share) (limit, minCut int) {
	limit = fd.over + p.caps[fd.kind] - 2 // the field at its cap
	if fd.kind == p.full {
		room := sh.room
		if p.level > 0 {
			room = max(p.level, sh.room-mulSat(sh.items-1, p.level))
		}
		limit = min(limit, sh.room, room)
		minCut = minShare
	}
	return limit, minCut
}

package mcpid

import "strings"

// Handle is a parsed fetch handle: legacy (stream:record) or self-contained,
// plain (connection/stream:record) or opaque (connection/:opaque). It is
// comparable, equal exactly when the ids are; the zero Handle is invalid.
// Build one with [Parse]; [Handle.String] gives the id back, unchanged.
type Handle struct {
	id     string // the whole id, as given
	stream int    // offset of the stream: 0, or one past the '/'
	colon  int    // offset of the ':' that ends the stream; == stream when opaque
}

// IsValid reports whether h is a parsed handle rather than the zero Handle.
func (h Handle) IsValid() bool { return h.id != "" }

// IsSelfContained reports whether h embeds its connection: whether it has
// the form connection/stream:record or connection/:opaque.
func (h Handle) IsSelfContained() bool { return h.stream > 0 }

// ConnectionID returns the embedded connection, decoded. %25, %2F and %3A
// become '%', '/' and ':'; a legacy handle and the zero Handle give "". It
// allocates only when the connection segment holds an escape.
func (h Handle) ConnectionID() string {
	if h.stream == 0 {
		return ""
	}
	return unescape(h.id[:h.stream-1])
}

// embeds reports whether h embeds the connection conn, comparing the
// decoded connection segment with conn without allocating.
func (h Handle) embeds(conn string) bool {
	if h.stream == 0 {
		return false
	}
	seg := h.id[:h.stream-1]
	if strings.IndexByte(seg, '%') < 0 {
		return seg == conn
	}
	j := 0
	for i := 0; i < len(seg); j++ {
		c := seg[i]
		i++
		if c == '%' {
			c = unescapeByte(seg[i:])
			i += 2
		}
		if j >= len(conn) || conn[j] != c {
			return false
		}
	}
	return j == len(conn)
}

// unescape decodes a connection segment that parse accepted.
func unescape(seg string) string {
	if strings.IndexByte(seg, '%') < 0 {
		return seg
	}
	var b strings.Builder
	b.Grow(len(seg))
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c == '%' {
			c = unescapeByte(seg[i+1:])
			i += 2
		}
		b.WriteByte(c)
	}
	return b.String()
}

// unescapeByte returns the byte that the two hex digits at the start of
// hex, those of an escape that parse accepted, stand for.
func unescapeByte(hex string) byte {
	switch hex[:2] {
	case "25":
		return '%'
	case "2F":
		return '/'
	}
	return ':'
}

// Stream returns the stream segment. It returns "" for an opaque handle and
// for the zero Handle. It does not allocate.
func (h Handle) Stream() string { return h.id[h.stream:h.colon] }

// RecordID returns the record segment, which may itself contain ':'. It is
// the opaque base id of an opaque handle, and "" for the zero Handle. It
// does not allocate.
func (h Handle) RecordID() string {
	if h.id == "" {
		return ""
	}
	return h.id[h.colon+1:]
}

// IsOpaque reports whether h has the opaque form connection/:opaque. A
// server must look an opaque base id up within the handle's connection and
// never build a file system or URL path from it.
func (h Handle) IsOpaque() bool { return h.id != "" && h.stream == h.colon }

// BaseID returns the id without its connection. That is stream:record for a
// plain handle, the opaque base id for an opaque one, "" for the zero
// Handle. It does not allocate.
func (h Handle) BaseID() string {
	if h.IsOpaque() {
		return h.id[h.colon+1:]
	}
	return h.id[h.stream:]
}

// String returns the id h was parsed from, byte for byte. It returns "" for
// the zero Handle.
func (h Handle) String() string { return h.id }

// AppendText implements [encoding.TextAppender]: it appends the id to b.
// The zero Handle appends nothing. It never fails, and it does not allocate
// when b has room.
func (h Handle) AppendText(b []byte) ([]byte, error) {
	return append(b, h.id...), nil
}

// MarshalText implements [encoding.TextMarshaler]. The zero Handle
// marshals as empty text.
func (h Handle) MarshalText() ([]byte, error) {
	return h.AppendText(make([]byte, 0, len(h.id)))
}

// UnmarshalText implements [encoding.TextUnmarshaler]. Empty text gives the
// zero Handle; any other text must be a valid id, as for [Parse]. On error
// *h is set to the zero Handle.
func (h *Handle) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*h = Handle{}
		return nil
	}
	var err error
	*h, err = Parse(string(text))
	return err
}

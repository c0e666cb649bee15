package mcpid

import (
	"unicode/utf8"

	"github.com/mcpid/mcpid/internal/previewshown"
)

// A server that pages through hits must know which hits its preview
// showed. It learns that from the renderer, which writes them: parsing
// the text it just wrote would be a second reader of the format on a data
// path, and a loop in disguise. searchfetch reaches renderShown through
// internal/previewshown, so that it is no API of this package.
func init() { previewshown.Render = renderShown }

// shownHits is what a preview wrote of its hits: each hit shown, with the
// fields it shows as a reader of the text decodes them, and its index in
// the hits passed in.
type shownHits struct {
	hits []Hit
	at   []int
}

// add records h, the hit at index i, as shown, with its connection id when
// conn, and returns the hit whose free text appendFields sets; on a nil
// s it records nothing and returns nil.
func (s *shownHits) add(h *Hit, i int, conn bool) *Hit {
	if s == nil {
		return nil
	}
	shown := Hit{ID: h.ID}
	if conn {
		shown.ConnectionID = h.ConnectionID
	}
	s.hits = append(s.hits, shown)
	s.at = append(s.at, i)
	return &s.hits[len(s.hits)-1]
}

// renderShown returns the text [RenderPreview] returns for hits and opts,
// the hits it shows, in order, as [ExtractHits] reads them from that text
// (the fields shown, a cut value ending in "…"), and the index of each in
// hits, or nil when it shows none. It allocates the two slices, sized
// for the hits shown.
func renderShown(hits []Hit, opts PreviewOptions) (text string, shown []Hit, at []int) {
	p := newPreview(hits, opts)
	if p.budget <= 0 {
		return "", nil, nil
	}
	var out shownHits
	if p.sel.shown > 0 {
		out = shownHits{hits: make([]Hit, 0, p.sel.shown), at: make([]int, 0, p.sel.shown)}
		p.out = &out
	}
	var stack [stackPreview]byte
	buf := stack[:0]
	if n := p.size(); n > len(stack) {
		buf = make([]byte, 0, n)
	}
	text = string(p.append(buf))
	return text, out.hits, out.at
}

// shownValue returns the value a field shows of s, of which it writes the
// first kept bytes, as a reader decodes it: s uncut, else that prefix and
// "…", with each byte that is not UTF-8 written as U+FFFD.
func shownValue(s string, kept int) string {
	v := s[:kept]
	if !utf8.ValidString(v) {
		b := make([]byte, 0, len(v)+8)
		for i := 0; i < len(v); {
			r, size := utf8.DecodeRuneInString(v[i:])
			b = utf8.AppendRune(b, r) // utf8.RuneError for an invalid byte
			i += size
		}
		v = string(b)
	}
	if kept < len(s) {
		v += ellipsis
	}
	return v
}

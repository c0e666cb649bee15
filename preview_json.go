package mcpid

// The fixed text of the JSON form.
const (
	jsonOpen  = `{"results":[`
	jsonClose = `]}`
	jsonIDKey = `{"id":`
)

// jsonSkeleton is the bytes of a JSON result besides its quoted id:
// `,"title":""`, `,"url":""` and the closing brace.
const jsonSkeleton = len(jsonIDKey) + len(`,"title":"","url":""}`)

// minJSONLine is the fewest bytes a hit takes in the JSON form with its
// separator: {"id":"","title":"","url":""}, and the comma. No more than
// budget/minJSONLine hits can be shown.
const minJSONLine = jsonSkeleton + 2 + 1

// jsonFields are the free-text fields of a result in the JSON form; the
// title is jsonFields[jsonTitle].
const jsonTitle = 0

var jsonFields = []field{
	{val: valTitle, kind: kindTitle, key: `,"title":"`},
	{val: valURL, kind: kindURL, key: `,"url":"`, whole: true},
	optional(valSnippet, kindSnippet, `,"text":"`),
}

// appendJSON writes the JSON form to dst.
func (p *preview) appendJSON(dst []byte) []byte {
	p.urlRoom = p.budget
	dst = append(dst, jsonOpen...)
	var sel choice
	sh := share{room: p.room, items: p.items}
	for i := range p.window {
		h := &p.window[i]
		if _, ok := sel.next(p, i, h); !ok {
			continue
		}
		if sel.shown > 1 {
			dst = append(dst, ',')
		}
		dst = append(dst, jsonIDKey...)
		dst = appendQuotedID(dst, h.ID)
		dst = p.appendFields(dst, h, &sh, p.out.add(h, i, false))
		dst = append(dst, '}')
	}
	return append(dst, jsonClose...)
}

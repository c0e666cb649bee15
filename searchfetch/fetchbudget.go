package searchfetch

import (
	"maps"
	"strconv"
	"unicode/utf8"

	"github.com/mcpid/mcpid"
)

// textDocument is a document of ModeDefault whose text may be its data's
// JSON (see [Tools.encodeData]): its JSON is the document's, with
// "data_as_text": true when it is.
type textDocument struct {
	Document
	DataAsText bool `json:"data_as_text,omitempty"`
}

// cutDocument is a document of ModeDefault whose text was cut: its JSON is
// the textDocument's with three members more.
type cutDocument struct {
	textDocument
	Truncated   bool `json:"truncated"`
	TotalLength int  `json:"total_length"`
	NextOffset  int  `json:"next_offset"`
}

// The members that ModeChatGPT adds to the metadata of a document whose
// text was cut.
const (
	metaTruncated   = "truncated"
	metaTotalLength = "total_length"
)

// maxRuneJSON is the most bytes one rune takes in a JSON string as
// marshal writes it: \u00XX for a control byte, \ufffd for a byte that
// is not valid UTF-8.
const maxRuneJSON = 6

// errNoRoom is the error of a document whose fields other than its text
// leave no room for the text within the fetch budget.
var errNoRoom = mcpid.NewError(mcpid.CodeInvalidResourceResponse,
	"the document's id, title, url and metadata leave no room for its text within the fetch budget",
	"report the source as faulty")

// encodeDocument returns the JSON of doc, whose id and url the tool has
// set, with its text read from the byte offset (an argument, validated
// here) and cut where the JSON fits the fetch budget; see
// [Options.FetchBudget]. A document with Data is encoded by
// [Tools.encodeData].
func (t *Tools) encodeDocument(doc Document, offset string) ([]byte, error) {
	if len(doc.Data) > 0 {
		return t.encodeData(doc, offset)
	}
	return t.encodeText(doc, offset)
}

// encodeText is encodeDocument for a document without Data.
//
// It costs O(FetchBudget), whatever the length of the text: the cut is
// found in one pass over no more of the text than the budget can hold, and
// the JSON is encoded at most three times, each of no more than the budget
// (the first two without the text). Reading a text of n bytes to its end
// so costs O(n) in all.
//
// Offsets count bytes of the text as the backend gave it, and a cut falls
// only before a byte that starts a rune (or an invalid byte that is no
// continuation byte), so that each invalid byte of a text that is not
// valid UTF-8 reads as one U+FFFD in whichever part it falls, as
// marshal writes it.
func (t *Tools) encodeText(doc Document, offset string) ([]byte, error) {
	budget := t.opts.FetchBudget
	if offset == "" && len(doc.Text) <= budget {
		// Often the whole document fits: one encoding tells.
		if b := marshal(doc); len(b) <= budget {
			return b, nil
		}
	}
	text := doc.Text
	start, err := textOffset(text, offset, t.hints.offset)
	if err != nil {
		return nil, err
	}
	if t.opts.Mode == ModeChatGPT {
		return cutChatGPT(doc, text, budget)
	}
	return cutDefault(doc, text, start, budget, false)
}

// cutDefault returns the JSON of doc with the text from start on, cut
// where the result fits budget, with the members of a cut document when
// it is cut, and "data_as_text" when asText says the text is the
// document's data.
func cutDefault(doc Document, text string, start, budget int, asText bool) ([]byte, error) {
	rest := text[start:]
	doc.Text = ""
	// The members of a cut are longest with next_offset at the end.
	cut := cutDocument{textDocument: textDocument{doc, asText}, Truncated: true, TotalLength: len(text), NextOffset: len(text)}
	skeleton := marshal(cut)
	marks := len(`,"truncated":true,"total_length":,"next_offset":`) + 2*len(strconv.Itoa(len(text)))
	end, whole := fitJSON(rest, budget-(len(skeleton)-marks), budget-len(skeleton))
	return fit(cut.textDocument, rest, end, whole, budget, func(end int) ([]byte, error) {
		cut.Text, cut.NextOffset = rest[:end], start+end
		return marshal(cut), nil
	})
}

// cutChatGPT returns the JSON of doc with its text cut where the result
// fits budget, with the marks of a cut in its metadata and a note at the
// end of its text when it is cut.
func cutChatGPT(doc Document, text string, budget int) ([]byte, error) {
	doc.Text = ""
	plain := marshal(doc)
	meta := make(map[string]string, len(doc.Metadata)+2)
	maps.Copy(meta, doc.Metadata) // the backend's map stays as it was
	meta[metaTruncated], meta[metaTotalLength] = "true", strconv.Itoa(len(text))
	cut := doc
	cut.Metadata, cut.Text = meta, cutNote(len(text), len(text))
	skeleton := marshal(cut)
	end, whole := fitJSON(text, budget-len(plain), budget-len(skeleton))
	return fit(textDocument{Document: doc}, text, end, whole, budget, func(end int) ([]byte, error) {
		cut.Text = text[:end] + cutNote(end, len(text))
		return marshal(cut), nil
	})
}

// fit returns the JSON of doc with text whole when whole (fitJSON found
// that it fits), errNoRoom when not a byte of text fits (end 0), and
// otherwise encode(end), the cut document, within budget (see shrink).
func fit(doc textDocument, text string, end int, whole bool, budget int, encode func(int) ([]byte, error)) ([]byte, error) {
	if whole {
		doc.Text = text
		return marshal(doc), nil
	}
	if end == 0 {
		return nil, errNoRoom
	}
	return shrink(text, end, budget, encode)
}

// cutNote is what ModeChatGPT appends to a text cut after shown of its
// total bytes.
func cutNote(shown, total int) string {
	return "\n\n[The text is cut here: these are the first " + strconv.Itoa(shown) +
		" of its " + strconv.Itoa(total) + " bytes.]"
}

// shrink returns encode(end), or, should that be over budget (fitJSON
// counts the escapes as marshal writes them, so it never is), the
// encoding of text cut shorter by the excess: each byte of text takes at
// least one in the JSON, so the second encoding fits.
func shrink(text string, end, budget int, encode func(int) ([]byte, error)) ([]byte, error) {
	b, err := encode(end)
	if err != nil || len(b) <= budget {
		return b, err
	}
	end = runeStart(text, end-(len(b)-budget))
	if end <= 0 {
		return nil, errNoRoom
	}
	return encode(end)
}

// fitJSON returns how many bytes of s, cut before a byte that starts a
// rune, fit in cut bytes once written in a JSON string, and whole: that all
// of s fits in room bytes (room ≥ cut). It reads s once, no further than
// room allows.
func fitJSON(s string, room, cut int) (end int, whole bool) {
	n := 0
	for i := 0; i < len(s); {
		w, size := 1, 1
		if c := s[i]; c < utf8.RuneSelf {
			w = int(jsonASCII[c])
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				w = maxRuneJSON // \ufffd for an invalid byte
			default:
				w = size
			}
		}
		if n+w > room {
			return end, false
		}
		n, i = n+w, i+size
		if n <= cut && (i == len(s) || utf8.RuneStart(s[i])) {
			end = i
		}
	}
	return len(s), true
}

// jsonASCII is the bytes each ASCII byte takes in a JSON string as
// marshal writes it: 2 for the short escapes, 6 for \u00XX (other control
// bytes), 1 for the rest, '<', '>' and '&' included.
var jsonASCII = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			t[c] = 2
		case c < 0x20:
			t[c] = maxRuneJSON
		default:
			t[c] = 1
		}
	}
	return t
}()

// runeStart returns i, or the start of the rune that holds byte i of s.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// textOffset returns the byte of text that the offset argument, digits or
// "" for none, names. It must be at most len(text) and start a rune (be no
// UTF-8 continuation byte); any other is an invalid_arguments error whose
// Field is offset, with hint.
func textOffset(text, offset, hint string) (int, error) {
	if offset == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(offset)
	if err != nil || n > len(text) {
		return 0, fieldError(FieldOffset, "argument \"offset\" is past the end of the text, which has "+strconv.Itoa(len(text))+" bytes", hint)
	}
	if runeStart(text, n) != n {
		return 0, fieldError(FieldOffset, "argument \"offset\" is inside a character of the text", hint)
	}
	return n, nil
}

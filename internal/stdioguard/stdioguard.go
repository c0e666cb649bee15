// Package stdioguard stands between a stdio MCP server and its client: it
// reads newline-delimited JSON-RPC itself, passes each line that the SDK
// behind it accepts, as the canonical form of the value it checked (the
// JSON value alone, without the white space around it), and answers every
// other line with a JSON-RPC error, so that no line costs more than its own
// request. The go-sdk ends the whole session on a line it cannot decode (a
// control byte, a non-JSON line, a batch, an object id, the id 1e400, JSON
// nested 998 deep, a line over 16 MiB, even a valid message followed by a
// space); mcp-go reads lines of any length. The adapters gosdk and mcpgo
// wrap their SDK's stdio serving with it.
//
// The guard does not guess what an SDK accepts: an adapter hands it the
// SDK's own decoder (Accept), or, for an SDK that exports none (mcp-go),
// the same first reading of a message, and a differential test checks the
// guard against the SDK's real transport. The guard passes exactly the
// values that decoder takes, re-framed so that the SDK's framing cannot
// disagree. Its own rules, beyond the SDK's, are the size and depth caps,
// the refusal of batches, which MCP dropped in 2025-06-18, of a message
// to a server whose envelope repeats a key (the SDK keeps the last value,
// while a logger or a proxy reading the first sees another method), and,
// on mcp-go, of ids that JSON-RPC forbids.
//
// The guard reads each line, once json.Valid has passed it, with a small
// scanner of its own rather than encoding/json: for the depth cap, which
// must hold before any decoder nests into the line, and for
// [CheckMessage]'s exact keys and reading that allocates nothing.
//
// At the end of its input a Guard with a drain limit (SetDrainLimit) holds
// the end back until the SDK has answered every request it passed, since
// both SDKs drop or cancel the calls still running when their input ends.
package stdioguard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mcpid/mcpid/internal/jsonlit"
)

// The bounds of a line. A tool call's arguments are an id, a query or a
// small object; JSON Schemas and documents nest far less than MaxDepth.
const (
	MaxLineBytes = 4 << 20
	MaxDepth     = 128
)

// The JSON-RPC error codes of a refused line.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
)

// Guard is an io.ReadCloser of the acceptable lines of r, each ending in
// '\n', that answers the other lines on w. Write writes one whole message
// line at a time, so that the SDK's answers and the guard's never
// interleave: the SDK must write through it, one message per call.
type Guard struct {
	in     *bufio.Reader
	closer io.Closer // r, when it is one

	line    []byte // the line being read
	pending []byte // what Read still owes of the last acceptable line

	mu  sync.Mutex
	out io.Writer // nil: refused lines are dropped, not answered

	// With a drain limit (SetDrainLimit): the requests passed to the SDK
	// and not yet answered, by idKey (guarded by mu); a signal of each
	// answer; and the end of the Guard, which ends a drain.
	drainLimit time.Duration
	inflight   map[string]request
	answered   chan struct{}
	closed     chan struct{}
	closeOnce  sync.Once

	accept Accept
	// repeats refuses a message whose envelope repeats a key (a server's
	// Guard), keys compared as encoding/json matches them with foldKeys.
	repeats, foldKeys bool
	dropped           func(reason string)
}

// Accept is an SDK's own verdict on one message: it returns nil when the
// SDK decodes msg, a single JSON object without surrounding white space,
// as a message it goes on after, and an error when the SDK would fail on
// it. A nil Accept stands for the plain JSON-RPC 2.0 rules of
// [CheckMessage], for a peer with no decoder to ask.
type Accept func(msg []byte) error

// New returns a Guard over r and w, for a server: it answers each refused
// line on w, but a refused response, which JSON-RPC never answers (and
// which answered could bounce between two guards forever). accept is the
// SDK's decoder. It also refuses a message whose envelope repeats a key,
// which the SDK would read as the last value while a logger or a proxy
// in front of the server reads the first.
func New(r io.Reader, w io.Writer, accept Accept) *Guard {
	if accept == nil {
		accept = CheckMessage
	}
	g := &Guard{in: bufio.NewReaderSize(r, 64<<10), out: w, accept: accept, repeats: true}
	if c, ok := r.(io.Closer); ok {
		g.closer = c
	}
	return g
}

// NewQuiet returns a Guard over r for a client, which reads what a server
// prints: it answers nothing, and drops each refused line (a stray log
// line on the server's stdout, say), calling dropped, when not nil, with
// the reason. It passes a message whose envelope repeats a key, as the SDK
// reads it: a client acts on the message its SDK decodes, and hands no
// one the line.
func NewQuiet(r io.Reader, accept Accept, dropped func(reason string)) *Guard {
	g := New(r, nil, accept)
	g.repeats = false
	g.dropped = dropped
	return g
}

// FoldKeys makes the Guard compare the keys of an envelope as
// encoding/json matches keys to struct fields, case-insensitively
// (bytes.EqualFold), for an SDK that decodes its envelope that way:
// "Method" then repeats "method", since either would set the method the
// SDK runs. Call it before the first Read.
func (g *Guard) FoldKeys() { g.foldKeys = true }

// Read implements io.Reader: it returns the bytes of the acceptable lines,
// and answers the others on the writer as it meets them.
func (g *Guard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		line, err := g.readLine()
		switch {
		case errors.Is(err, errTooLong):
			g.refuse(nil, CodeInvalidRequest, "the message exceeds "+strconv.Itoa(MaxLineBytes)+" bytes")
			continue
		case err != nil && len(line) == 0:
			g.drain()
			return 0, err
		}
		line = trimSpace(line)
		if len(line) == 0 {
			continue
		}
		if id, code, msg := g.check(line); code != 0 {
			// Only valid JSON (CodeInvalidRequest) can be a response.
			if code == CodeParseError || !isResponse(line) {
				g.refuse(id, code, msg)
			} else if g.dropped != nil {
				g.dropped(msg)
			}
			continue
		}
		if g.inflight != nil {
			g.track(line)
		}
		// The value alone, and the line's end right after it: the SDK
		// reads no white space it could call trailing data.
		g.pending = append(line, '\n')
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// Close closes the reader the Guard reads, when it is an io.Closer, and
// ends a drain under way.
func (g *Guard) Close() error {
	if g.closed != nil {
		g.closeOnce.Do(func() { close(g.closed) })
	}
	if g.closer != nil {
		return g.closer.Close()
	}
	return nil
}

// Write writes p, one whole message line of the SDK's, to the writer.
func (g *Guard) Write(p []byte) (int, error) {
	n, err := g.write(p)
	if g.inflight != nil && err == nil {
		g.answer(trimSpace(p))
	}
	return n, err
}

// write writes p, one whole message line, to the writer.
func (g *Guard) write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.out.Write(p)
}

// errTooLong reports a line over MaxLineBytes, which was skipped whole.
var errTooLong = errors.New("stdioguard: line too long")

// readLine returns the next line without its '\n' (and '\r'), or
// errTooLong after skipping a line over MaxLineBytes to its end. It keeps
// no more than MaxLineBytes of a line.
func (g *Guard) readLine() ([]byte, error) {
	g.line = g.line[:0]
	tooLong := false
	for {
		chunk, err := g.in.ReadSlice('\n')
		if !tooLong {
			if len(g.line)+len(chunk) > MaxLineBytes+2 {
				tooLong, g.line = true, g.line[:0]
			} else {
				g.line = append(g.line, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case tooLong:
			return nil, errTooLong
		case err != nil:
			return g.line, err
		}
		return bytes.TrimSuffix(bytes.TrimSuffix(g.line, []byte("\n")), []byte("\r")), nil
	}
}

// check returns the code and message of the error that answers line, a
// non-empty line without surrounding JSON white space, with the id to
// answer it under (nil for null), or code 0 when the line is an acceptable
// message: valid JSON (the SDK frames a line with encoding/json before it
// decodes it), one object, nested no deeper than MaxDepth, that the SDK's
// decoder accepts, and, for a server's Guard, whose envelope repeats no
// key. Each check reads the line once.
func (g *Guard) check(line []byte) (id json.RawMessage, code int, msg string) {
	if !json.Valid(line) {
		return nil, CodeParseError, "the message is not valid JSON"
	}
	switch {
	case depth(line) > MaxDepth:
		msg = "the message nests deeper than " + strconv.Itoa(MaxDepth) + " levels"
	case line[0] == '[':
		msg = "batches are not supported: send one message a line"
	case line[0] != '{':
		msg = "a message must be a JSON object"
	default:
		if key, ok := g.repeatedKey(line); ok {
			id = idOf(line)
			if sameKey([]byte(key), []byte("id"), g.foldKeys) {
				id = nil // two ids name no one request: the answer names none
			}
			return id, CodeInvalidRequest, "the message repeats the key " + strconv.Quote(key) + ": send each key once"
		}
		if g.accept(line) == nil {
			return nil, 0, ""
		}
		msg = "the message is not a valid JSON-RPC request, notification or response"
	}
	return idOf(line), CodeInvalidRequest, msg
}

// pairwiseKeys is how many keys of an envelope repeatedKey compares
// pair by pair, allocating nothing: an MCP message has at most five
// (jsonrpc, id, method, params, and result or error). An envelope with
// more is checked with a map.
const pairwiseKeys = 16

// repeatedKey returns the first key of the JSON object line, which must
// be valid JSON, that repeats an earlier one, compared decoded (and with
// FoldKeys, case-insensitively), and reports whether there is one; a
// quiet Guard finds none. A repeated
// key smuggles a message: the SDK keeps the last value, while a logger or
// a proxy that reads the first sees another method, id or params.
func (g *Guard) repeatedKey(line []byte) (string, bool) {
	if !g.repeats {
		return "", false
	}
	fold := g.foldKeys
	var few [pairwiseKeys][]byte
	n := 0
	var many map[string]bool
	var repeated []byte
	members(line, func(key, _ []byte) {
		switch {
		case repeated != nil:
			return
		case many == nil:
			for _, k := range few[:n] {
				if sameKey(k, key, fold) {
					repeated = key
					return
				}
			}
			if n < len(few) {
				few[n] = key
				n++
				return
			}
			many = make(map[string]bool, 2*len(few))
			for _, k := range few {
				many[keyOf(k, fold)] = true
			}
		}
		k := keyOf(key, fold)
		if many[k] {
			repeated = key
			return
		}
		many[k] = true
	})
	return string(repeated), repeated != nil
}

// sameKey reports whether the decoded keys a and b are one key, with fold
// case-insensitively.
func sameKey(a, b []byte, fold bool) bool {
	if fold {
		return bytes.EqualFold(a, b)
	}
	return bytes.Equal(a, b)
}

// keyOf returns the decoded key k as a map key: itself, or with fold the
// same string for every key bytes.EqualFold takes for k (each rune the
// least of its simple case folding orbit).
func keyOf(k []byte, fold bool) string {
	if !fold {
		return string(k)
	}
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, string(k))
}

// CheckMessage returns an error unless line is a JSON-RPC 2.0 message: a
// JSON object with "jsonrpc":"2.0", an id (if any)
// that is a string, a number or null, a method (if any) that is a string,
// an error (if any) that is an object whose code (if any) is an integer
// of at most 64 bits and whose message (if any) is a string, and an id
// when it has no method (a response). Keys match exactly (encoding/json
// would take "JSONRPC" for "jsonrpc"). It walks the top-level object once
// and allocates nothing for a valid message. line must be valid JSON, as
// the guard checks before it asks.
func CheckMessage(line []byte) error {
	var version, id, method, rpcErr []byte
	found := members(line, func(key, value []byte) {
		switch string(key) {
		case "jsonrpc":
			version = value
		case "id":
			id = value
		case "method":
			method = value
		case "error":
			rpcErr = value
		}
	})
	switch {
	case !found:
		return errors.New("not a JSON object")
	case !isString(version, "2.0"):
		return errors.New(`no "jsonrpc":"2.0"`)
	case id != nil && !validID(id) && string(id) != "null":
		return errors.New("an id that is neither a string, a number nor null")
	case method != nil && method[0] != '"':
		return errors.New("a method that is not a string")
	case method == nil && id == nil:
		return errors.New("a response without an id")
	case rpcErr != nil && !validError(rpcErr):
		return errors.New("a malformed error")
	}
	return nil
}

// members calls f with each key, decoded, and raw value of the JSON
// object v, which must be valid JSON, and reports whether v is an object.
func members(v []byte, f func(key, value []byte)) bool {
	i := jsonlit.SkipSpace(v, 0)
	if i == len(v) || v[i] != '{' {
		return false
	}
	i = jsonlit.SkipSpace(v, i+1)
	for i < len(v) && v[i] == '"' {
		end, escaped, _ := jsonlit.End(v, i) // valid JSON: a string
		key := v[i+1 : end-1]
		if escaped {
			k, _ := jsonlit.Unquote(v[i:end])
			key = []byte(k)
		}
		i = jsonlit.SkipSpace(v, jsonlit.SkipSpace(v, end)+1) // past the ':'
		end = skipValue(v, i)
		f(key, v[i:end])
		i = jsonlit.SkipSpace(v, end)
		if i < len(v) && v[i] == ',' {
			i = jsonlit.SkipSpace(v, i+1)
		}
	}
	return true
}

// trimSpace returns v without the JSON white space at its ends.
func trimSpace(v []byte) []byte {
	end := len(v)
	for end > 0 && jsonlit.IsSpace(v[end-1]) {
		end--
	}
	return v[jsonlit.SkipSpace(v[:end], 0):end]
}

// skipValue returns the index just past the JSON value that starts at i
// in the valid JSON v. Where a string does not end (v is not valid JSON)
// it returns len(v)+1, past the end, for responseID, which reads the
// SDK's JSON unchecked, to stop at.
func skipValue(v []byte, i int) int {
	switch v[i] {
	case '"':
		end, _, ok := jsonlit.End(v, i)
		if !ok {
			return len(v) + 1
		}
		return end
	case '{', '[':
		d := 0
		for ; i < len(v); i++ {
			switch v[i] {
			case '"':
				if i = skipValue(v, i) - 1; i >= len(v) {
					return len(v) + 1
				}
			case '{', '[':
				d++
			case '}', ']':
				if d--; d == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(v) && !strings.ContainsRune(",}] \t\r\n", rune(v[i])) {
		i++
	}
	return i
}

// isString reports whether the raw JSON value v is the string want.
func isString(v []byte, want string) bool {
	if len(v) == 0 || v[0] != '"' {
		return false
	}
	if string(v[1:len(v)-1]) == want {
		return true
	}
	s, ok := jsonlit.Unquote(v)
	return ok && s == want
}

// validID reports whether the raw JSON value id is a string or a number
// that a float64 holds (1.0 and 1e3 are numbers; 1e400 is not), the ids a
// refusal can be answered under.
func validID(id []byte) bool {
	if len(id) > 0 && id[0] == '"' {
		return true
	}
	if len(id) == 0 || (id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
		return false
	}
	_, err := strconv.ParseFloat(string(id), 64)
	return err == nil
}

// isInt64 reports whether the raw JSON value v is an integer that fits 64
// bits: digits only, after an optional '-', and no more than int64 holds.
func isInt64(v []byte) bool {
	digits := bytes.TrimPrefix(v, []byte("-"))
	if len(digits) == 0 || len(digits) > 19 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	if len(digits) < 19 {
		return true
	}
	most := "9223372036854775807"
	if len(digits) < len(v) {
		most = "9223372036854775808"
	}
	return string(digits) <= most
}

// validError reports whether the raw JSON value v is a JSON-RPC error
// object: its code, if any, an integer that fits 64 bits, and its
// message, if any, a string.
func validError(v []byte) bool {
	ok := true
	if !members(v, func(key, value []byte) {
		switch string(key) {
		case "code":
			ok = ok && isInt64(value)
		case "message":
			ok = ok && value[0] == '"'
		}
	}) {
		return false
	}
	return ok
}

// idOf returns the id of the message line, which must be valid JSON, when
// it has a valid one, or nil.
func idOf(line []byte) json.RawMessage {
	var id []byte
	members(line, func(key, value []byte) {
		if string(key) == "id" {
			id = value
		}
	})
	if id == nil || !validID(id) {
		return nil
	}
	return id
}

// isResponse reports whether line, which must be valid JSON, is an object
// with a result or an error and no method: a response, which is never
// answered.
func isResponse(line []byte) bool {
	var method, outcome bool
	members(line, func(key, _ []byte) {
		switch string(key) {
		case "method":
			method = true
		case "result", "error":
			outcome = true
		}
	})
	return outcome && !method
}

// depth returns how deep the JSON value line nests its arrays and objects.
func depth(line []byte) int {
	d, most := 0, 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			end, _, _ := jsonlit.End(line, i) // valid JSON: a string
			i = end - 1
		case '[', '{':
			d++
			most = max(most, d)
		case ']', '}':
			d--
		}
	}
	return most
}

// refuse answers a refused line with a JSON-RPC error under id (null when
// nil), or drops it when the Guard answers nothing.
func (g *Guard) refuse(id json.RawMessage, code int, message string) {
	if g.out == nil {
		if g.dropped != nil {
			g.dropped(message)
		}
		return
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	_, _ = g.write(append(b, '\n')) // not the SDK's: answers no request it holds
}

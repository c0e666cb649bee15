package searchfetch

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"strconv"
	"strings"

	"github.com/mcpid/mcpid"
)

// FieldCursor is the [mcpid.Error.Field] of an invalid_arguments error
// about a cursor this search did not give (to this caller, with a Sealer).
const FieldCursor = "cursor"

// cursorHint is the hint of every error about the cursor argument, a
// template in which {search} stands for the search tool's name.
const cursorHint = `pass next_cursor exactly as {search} gave it, with the same query, or {search} again without a cursor`

// A cursor is where the next page of a search starts. It holds all the
// state, so that any replica serves any page, and it shows nothing the
// pages did not: it counts the readable hits already passed (shown, or
// passed over as unfetchable or as a duplicate), never a position in the
// backend's list, which would count the hits of connections the caller
// may not read. Its text is
//
//	passed [ "-" pages "-" earlier "." backend ] "~" tag
//
// where passed is a decimal count, backend the cursor the backend gave for
// the backend's page (none for its first page), pages the backend pages
// passed to reach it (1 for the backend's second page), earlier the
// readable hits of those pages (so that a backend's Total of the whole
// result counts what remains), and tag
// [mcpid.SealTagLen] characters of a MAC over the payload (passed and
// backend) and what it is bound to, which are not written: with a Sealer,
// an HMAC under its keys of the caller's UserID, the query and the
// options that set page boundaries (the preview's Budget and MaxHits), so
// that another caller's cursor, another query's or an edited one is
// refused; without one, a SHA-256 of the query alone, which binds the
// cursor to its query but lets anyone make one (the hits shown are still
// only those the caller may read). The MAC's input starts with a label
// holding a NUL byte, which no id the tools seal holds: a cursor never
// opens as an id, nor an id as a cursor.
type cursor struct {
	passed  int    // readable hits of the backend's page already passed
	backend string // the backend's cursor of its page; "" for its first
	// pages and earlier are, with a backend cursor, the backend pages
	// passed to reach its page and their readable hits.
	pages, earlier int
}

// cursorLabel starts the input of a cursor's MAC.
const cursorLabel = "mcpid search cursor\x00"

// maxPassed bounds the counts of a cursor: 9 digits.
const maxPassed = 999_999_999

// maxBackendPages is the most backend pages a model pages through for one
// query: a backend whose cursors loop (A, B, A, …) pages no model forever.
// Past it, paging ends and the result says to narrow the query.
const maxBackendPages = 1000

// maxBackendCursor is the longest backend cursor a cursor carries, in
// bytes: a model copies the cursor back, paying for every token of it. A
// longer one ends paging, and the result says to narrow the query.
const maxBackendCursor = 256

// cursorAlphabet writes a cursor's tag without a Sealer, as seals are
// written: 5 bits a character, no i, l, o or u.
const cursorAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// payload returns the written part of c but its tag.
func (c cursor) payload() string {
	p := strconv.Itoa(c.passed)
	if c.backend != "" {
		p += "-" + strconv.Itoa(c.pages) + "-" + strconv.Itoa(c.earlier) + "." + c.backend
	}
	return p
}

// cursorText returns the text of c for query and the caller in ctx.
func (t *Tools) cursorText(ctx context.Context, query string, c cursor) string {
	p := c.payload()
	return p + "~" + t.cursorTag(ctx, query, p)
}

// openCursor returns the cursor whose text is s, given for query to the
// caller in ctx, or an invalid_arguments error about the cursor argument.
func (t *Tools) openCursor(ctx context.Context, query, s string) (cursor, error) {
	i := strings.LastIndexByte(s, '~')
	if i < 0 || len(s)-i-1 != mcpid.SealTagLen {
		return cursor{}, t.badCursor()
	}
	p, tag := s[:i], s[i+1:]
	nums, backend, dotted := strings.Cut(p, ".")
	c, ok := readCounts(nums, dotted)
	if !ok || dotted && !validBackendCursor(backend) {
		return cursor{}, t.badCursor()
	}
	if !t.cursorTagged(ctx, query, p, tag) {
		return cursor{}, t.badCursor()
	}
	c.backend = backend
	return c, nil
}

// readCounts reads the counts of a cursor's payload, s: passed alone, or
// with a backend cursor, passed, pages and earlier, each a decimal count
// as payload writes it.
func readCounts(s string, backend bool) (cursor, bool) {
	want := 1
	if backend {
		want = 3
	}
	parts := strings.SplitN(s, "-", 4)
	if len(parts) != want {
		return cursor{}, false
	}
	var n [3]int
	for k, num := range parts {
		v, err := strconv.Atoi(num)
		if err != nil || v < 0 || v > maxPassed || strconv.Itoa(v) != num {
			return cursor{}, false
		}
		n[k] = v
	}
	c := cursor{passed: n[0], pages: n[1], earlier: n[2]}
	if backend && (c.pages < 1 || c.pages > maxBackendPages) {
		return cursor{}, false
	}
	return c, true
}

// badCursor returns the error of a cursor the tools did not give.
func (t *Tools) badCursor() *mcpid.Error {
	return fieldError(FieldCursor, "the cursor is not one "+quote(t.opts.SearchName)+" gave for this query",
		t.hints.cursor)
}

// cursorTag returns the tag of the payload p for query and the caller in
// ctx.
func (t *Tools) cursorTag(ctx context.Context, query, p string) string {
	msg := t.cursorMAC(ctx, query, p)
	if t.opts.Sealer != nil {
		sealed := t.opts.Sealer.Seal(msg)
		return sealed[len(sealed)-mcpid.SealTagLen:]
	}
	return hashTag(msg)
}

// cursorTagged reports whether tag is the tag of the payload p for query
// and the caller in ctx, under any of the Sealer's keys.
func (t *Tools) cursorTagged(ctx context.Context, query, p, tag string) bool {
	msg := t.cursorMAC(ctx, query, p)
	if t.opts.Sealer != nil {
		_, err := t.opts.Sealer.Open(msg + "~" + tag)
		return err == nil
	}
	return subtle.ConstantTimeCompare([]byte(hashTag(msg)), []byte(tag)) == 1
}

// cursorMAC returns the input of a cursor's MAC: the label, then each
// value it binds, the strings with their lengths so that no two inputs
// read alike. Without a Sealer it binds the query alone.
func (t *Tools) cursorMAC(ctx context.Context, query, p string) string {
	var b strings.Builder
	b.WriteString(cursorLabel)
	if t.opts.Sealer != nil {
		caller, _ := CallerFrom(ctx)
		writeField(&b, caller.UserID)
		b.WriteString(strconv.Itoa(t.opts.Preview.Budget))
		b.WriteByte(',')
		b.WriteString(strconv.Itoa(cmp.Or(t.opts.Preview.MaxHits, mcpid.DefaultMaxHits)))
		b.WriteByte(',')
	}
	writeField(&b, query)
	b.WriteString(p)
	return b.String()
}

// cursorBinding returns what the cursors of a search of query with the
// extra arguments args are bound to, in place of the query alone: the
// query itself when the search declares no extra argument, else the query
// and the canonical arguments, each after its length, so that a cursor
// given with other arguments is refused as one of another query is.
func (t *Tools) cursorBinding(query string, args Args) string {
	if t.hints.searchArgs.extra == nil {
		return query
	}
	var b strings.Builder
	writeField(&b, query)
	writeField(&b, args.String())
	return b.String()
}

// writeField writes s to b after its length.
func writeField(b *strings.Builder, s string) {
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteByte(':')
	b.WriteString(s)
}

// hashTag returns the tag of msg without a key: its SHA-256's first 35
// bits in cursorAlphabet.
func hashTag(msg string) string {
	sum := sha256.Sum256([]byte(msg))
	bits := uint64(sum[0])<<32 | uint64(sum[1])<<24 | uint64(sum[2])<<16 | uint64(sum[3])<<8 | uint64(sum[4])
	var tag [mcpid.SealTagLen]byte
	for i := len(tag) - 1; i >= 0; i-- {
		tag[i] = cursorAlphabet[bits&31]
		bits >>= 5
	}
	return string(tag[:])
}

// validBackendCursor reports whether a cursor can carry the backend
// cursor s: not empty, at most maxBackendCursor bytes, and only printable
// ASCII, which every channel shows as it is.
func validBackendCursor(s string) bool {
	if s == "" || len(s) > maxBackendCursor {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

package mcpid

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/idcases"
)

// connections returns n connection ids, c00 to c<n-1>.
func connections(n int) []string {
	cs := make([]string, n)
	for i := range cs {
		cs[i] = fmt.Sprintf("c%02d", i)
	}
	return cs
}

// errorCorpus is one error of every kind the package produces: every code,
// every field, every fault, the given-text constructor and the lists of
// available connections at their edges.
func errorCorpus() []struct {
	name string
	err  *Error
	want string // the envelope
} {
	asError := func(_ any, err error) *Error {
		var e *Error
		if !errors.As(err, &e) {
			panic(fmt.Sprintf("not an *Error: %v", err))
		}
		return e
	}
	return []struct {
		name string
		err  *Error
		want string
	}{
		{"invalid_id", asError(Parse("cin_a/orders:../../etc/passwd")),
			`{"type":"adapter_error","code":"invalid_id","message":"record segment contains \"..\"","hint":"pass the id exactly as search returned it, as one value, unedited","field":"id","segment":"record","offset":13,"id":"cin_a/orders:../../etc/passwd"}`},
		{"invalid_id, empty", asError(Parse("")),
			`{"type":"adapter_error","code":"invalid_id","message":"id is empty","hint":"pass the id exactly as search returned it, as one value, unedited","field":"id","id":""}`},
		{"invalid_id, no colon", asError(Parse("orders")),
			`{"type":"adapter_error","code":"invalid_id","message":"stream segment has no ':' before the record","hint":"pass the id exactly as search returned it, as one value, unedited","field":"id","segment":"stream","offset":0,"id":"orders"}`},
		{"invalid_id, second slash", asError(Parse("c/x/s:r")),
			`{"type":"adapter_error","code":"invalid_id","message":"stream segment has a second '/'","hint":"pass the id exactly as search returned it, as one value, unedited","field":"id","segment":"stream","offset":3,"id":"c/x/s:r"}`},
		{"invalid_id, control in opaque", asError(Parse("c/:T-17\n")),
			`{"type":"adapter_error","code":"invalid_id","message":"record segment contains control character U+000A","hint":"pass the id exactly as search returned it, as one value, unedited","field":"id","segment":"record","offset":7,"id":"c/:T-17\n"}`},
		{"invalid_id, empty opaque", asError(Parse("c/:")),
			`{"type":"adapter_error","code":"invalid_id","message":"record segment is empty","hint":"pass the id exactly as search returned it, as one value, unedited","field":"id","segment":"record","offset":2,"id":"c/:"}`},
		{"invalid_id, invalid UTF-8", asError(Parse("s:\xff")),
			`{"type":"adapter_error","code":"invalid_id","message":"record segment is not valid UTF-8","hint":"pass the id exactly as search returned it, as one value, unedited","field":"id","segment":"record","offset":2,"id":"s:�"}`},
		{"invalid_id, from Encode", asError(Encode("c", "a/b", "r")),
			`{"type":"adapter_error","code":"invalid_id","message":"stream segment contains '/'","hint":"pass the id exactly as search returned it, as one value, unedited","field":"id","segment":"stream","offset":1,"id":"a/b"}`},
		{"invalid_id, bad escape", asError(Parse("a%2fb/s:r")),
			`{"type":"adapter_error","code":"invalid_id","message":"connection segment has a '%' that is not %25, %2F or %3A","hint":"pass the id exactly as search returned it, as one value, unedited","field":"id","segment":"connection","offset":1,"id":"a%2fb/s:r"}`},
		{"invalid_connection_id", asError(ResolveFetch("s:r", `a\b`)),
			`{"type":"adapter_error","code":"invalid_connection_id","message":"connection_id contains '\\'","hint":"pass connection_id exactly as search returned it, or omit it","field":"connection_id","offset":1,"connection_id":"a\\b"}`},
		{"conflicting_connection_id", asError(ResolveFetch("c1/s:r", "c2")),
			`{"type":"adapter_error","code":"conflicting_connection_id","message":"the id names a different connection than connection_id","hint":"pass the id alone, without connection_id","field":"connection_id","segment":"connection","connection_id":"c2","embedded_connection_id":"c1"}`},
		{"conflicting_connection_id, opaque", asError(ResolveFetch("c1/:https://x.example/a", "c2")),
			`{"type":"adapter_error","code":"conflicting_connection_id","message":"the id names a different connection than connection_id","hint":"pass the id alone, without connection_id","field":"connection_id","segment":"connection","connection_id":"c2","embedded_connection_id":"c1"}`},
		{"ambiguous_connection, none", AmbiguousConnection(nil),
			`{"type":"adapter_error","code":"ambiguous_connection","message":"the record exists in 0 connections","hint":"search again and fetch an id from the new results","available_connections":[],"retry_with":"connection_id"}`},
		{"ambiguous_connection, one", AmbiguousConnection(connections(1)),
			`{"type":"adapter_error","code":"ambiguous_connection","message":"the record exists in 1 connection","hint":"retry with connection_id set to one of available_connections","available_connections":["c00"],"retry_with":"connection_id"}`},
		{"ambiguous_connection, twenty", AmbiguousConnection(connections(20)),
			`{"type":"adapter_error","code":"ambiguous_connection","message":"the record exists in 20 connections","hint":"retry with connection_id set to one of available_connections","available_connections":["c00","c01","c02","c03","c04","c05","c06","c07","c08","c09","c10","c11","c12","c13","c14","c15","c16","c17","c18","c19"],"retry_with":"connection_id"}`},
		{"ambiguous_connection, fifty", AmbiguousConnection(connections(50)),
			`{"type":"adapter_error","code":"ambiguous_connection","message":"the record exists in 50 connections","hint":"retry with connection_id set to one of available_connections","available_connections":["c00","c01","c02","c03","c04","c05","c06","c07","c08","c09","c10","c11","c12","c13","c14","c15","c16","c17","c18","c19"],"available_connections_omitted":30,"retry_with":"connection_id"}`},
		{"ambiguous_connection, ids", AmbiguousConnectionIDs("orders:o1", []string{"cin_4f2a", "projects/p1/connections/c2"}),
			`{"type":"adapter_error","code":"ambiguous_connection","message":"the record exists in 2 connections","hint":"retry with id set to one of available_ids","available_ids":["cin_4f2a/orders:o1","projects%2Fp1%2Fconnections%2Fc2/orders:o1"],"retry_with":"id"}`},
		{"ambiguous_connection, ids of fifty and two that cannot embed", AmbiguousConnectionIDs("T-17", append(connections(50), "..", `a\b`)),
			`{"type":"adapter_error","code":"ambiguous_connection","message":"the record exists in 52 connections","hint":"retry with id set to one of available_ids","available_ids":["c00/:T-17","c01/:T-17","c02/:T-17","c03/:T-17","c04/:T-17","c05/:T-17","c06/:T-17","c07/:T-17","c08/:T-17","c09/:T-17","c10/:T-17","c11/:T-17","c12/:T-17","c13/:T-17","c14/:T-17","c15/:T-17","c16/:T-17","c17/:T-17","c18/:T-17","c19/:T-17"],"available_ids_omitted":32,"retry_with":"id"}`},
		{"not_found", &Error{Code: CodeNotFound, Offset: -1},
			`{"type":"adapter_error","code":"not_found","message":"the resource server has no such record","hint":"search again and fetch an id from the new results"}`},
		{"resource_unavailable", &Error{Code: CodeResourceUnavailable, Offset: -1},
			`{"type":"adapter_error","code":"resource_unavailable","message":"the resource server is unavailable","hint":"retry later","retryable":true}`},
		{"resource_error", &Error{Code: CodeResourceError, Offset: -1},
			`{"type":"adapter_error","code":"resource_error","message":"the resource server failed the request","hint":"the same call fails again: try another request, or report the failure"}`},
		{"invalid_resource_response", &Error{Code: CodeInvalidResourceResponse, Offset: -1},
			`{"type":"adapter_error","code":"invalid_resource_response","message":"the resource server's answer cannot be used","hint":"retry later, or fetch another result"}`},
		{"unknown_id", func() *Error {
			s, err := NewSealer([]byte("0123456789abcdef"))
			if err != nil {
				panic(err)
			}
			_, err = s.Open("cin_4f2a/orders:o13~7q3kf9a")
			return asError(nil, err)
		}(),
			`{"type":"adapter_error","code":"unknown_id","message":"no search issued this id: its seal is missing or does not match","hint":"pass an id exactly as search showed it, or search again","field":"id","id":"cin_4f2a/orders:o13~7q3kf9a"}`},
		{"forbidden", &Error{Code: CodeForbidden, Offset: -1},
			`{"type":"adapter_error","code":"forbidden","message":"the caller may not read that connection","hint":"search again, then fetch an id that search shows"}`},
		{"the zero Error", &Error{},
			`{"type":"adapter_error","code":"","message":"","offset":0}`},
		{"a count at its limit saturates", func() *Error {
			var e Error
			if err := json.Unmarshal([]byte(`{"type":"adapter_error","code":"ambiguous_connection","message":"m","available_connections":["c00","c01","c02","c03","c04","c05","c06","c07","c08","c09","c10","c11","c12","c13","c14","c15","c16","c17","c18","c19","c20"],"available_connections_omitted":9223372036854775807}`), &e); err != nil {
				panic(err)
			}
			return &e
		}(),
			`{"type":"adapter_error","code":"ambiguous_connection","message":"m","available_connections":["c00","c01","c02","c03","c04","c05","c06","c07","c08","c09","c10","c11","c12","c13","c14","c15","c16","c17","c18","c19"],"available_connections_omitted":9223372036854775807,"retry_with":"connection_id"}`},
		{"NewError", NewError(CodeNotFound, "no ticket has this key", "search tickets again"),
			`{"type":"adapter_error","code":"not_found","message":"no ticket has this key","hint":"search tickets again"}`},
		{"NewError, no hint", NewError(CodeResourceUnavailable, "the ticket service timed out", ""),
			`{"type":"adapter_error","code":"resource_unavailable","message":"the ticket service timed out","retryable":true}`},
		{"NewError for a custom tool's argument", func() *Error {
			e := NewError("quota_exceeded", "the query is over the daily quota", "retry tomorrow")
			e.Field, e.Input, e.Offset = "query", "refunds", 3
			return e
		}(),
			`{"type":"adapter_error","code":"quota_exceeded","message":"the query is over the daily quota","hint":"retry tomorrow","field":"query","offset":3,"input":"refunds"}`},
		{"every field set by hand", &Error{Code: CodeNotFound, Field: "path", Segment: "s", Offset: 0, Input: "x", Embedded: "c1", Available: []string{"c2"}},
			`{"type":"adapter_error","code":"not_found","message":"the resource server has no such record","hint":"search again and fetch an id from the new results","field":"path","segment":"s","offset":0,"input":"x","embedded_connection_id":"c1","available_connections":["c2"]}`},
		{"WithHint", func() *Error {
			_, err := Parse("s")
			return asError(nil, err).WithHint("pass the id as kb_search showed it")
		}(),
			`{"type":"adapter_error","code":"invalid_id","message":"stream segment has no ':' before the record","hint":"pass the id as kb_search showed it","field":"id","segment":"stream","offset":0,"id":"s"}`},
		{"NewError, unknown code", NewError("quota_exceeded", "the daily fetch quota is used up", "retry tomorrow"),
			`{"type":"adapter_error","code":"quota_exceeded","message":"the daily fetch quota is used up","hint":"retry tomorrow"}`},
	}
}

// TestEnvelopeGolden pins the JSON envelope of every code and every kind
// of error, byte for byte: servers put it in structuredContent and agents
// parse it.
func TestEnvelopeGolden(t *testing.T) {
	for _, tc := range errorCorpus() {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.err)
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("envelope (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEnvelopeRoundTrip decodes every envelope and checks that it
// marshals to the same bytes and still matches its sentinel.
func TestEnvelopeRoundTrip(t *testing.T) {
	for _, tc := range errorCorpus() {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, idcases.CheckEnvelopeRoundTrip(tc.err, decodeEnvelope, sentinel(tc.err.Code)))
		})
	}
}

// decodeEnvelope is Error.UnmarshalJSON into a fresh value.
func decodeEnvelope(b []byte) (error, error) {
	var e Error
	err := json.Unmarshal(b, &e)
	return &e, err
}

// TestEnvelopeDecodedFields checks that decoding gives back the fields a
// client reads, not only the same bytes.
func TestEnvelopeDecodedFields(t *testing.T) {
	for _, tc := range errorCorpus() {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.err)
			require.NoError(t, err)
			var got Error
			require.NoError(t, json.Unmarshal(b, &got))
			assert.Equal(t, tc.err.Code, got.Code)
			assert.Equal(t, tc.err.Field, got.Field)
			assert.Equal(t, tc.err.Segment, got.Segment)
			assert.Equal(t, tc.err.Offset, got.Offset)
			assert.Equal(t, tc.err.Embedded, got.Embedded)
			assert.Equal(t, tc.err.Message(), got.Message())
			assert.Equal(t, tc.err.Hint(), got.Hint())
			if utf8.ValidString(tc.err.Input) {
				assert.Equal(t, tc.err.Input, got.Input)
			}
			if n := len(tc.err.Available); n > 0 {
				assert.Equal(t, tc.err.Available[:min(n, MaxAvailableConnections)], got.Available)
			}
			if n := len(tc.err.AvailableIDs); n > 0 {
				assert.Equal(t, tc.err.AvailableIDs[:min(n, MaxAvailableConnections)], got.AvailableIDs)
			}
			if utf8.ValidString(tc.err.Input) {
				assert.Equal(t, tc.err.Error(), got.Error(), "the log text survives too")
			}
		})
	}
}

// TestEnvelopeSaysEachThingOnce checks that the message holds neither the
// hint nor the input, and the hint neither the message nor the input.
func TestEnvelopeSaysEachThingOnce(t *testing.T) {
	for _, tc := range errorCorpus() {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.err
			msg, hint := e.Message(), e.Hint()
			if e.Code == "" {
				return // built without a code, it has nothing to say
			}
			require.NotEmpty(t, msg)
			if hint != "" {
				assert.NotContains(t, msg, hint)
				assert.NotContains(t, hint, msg)
			}
			for _, input := range []string{e.Input, e.Embedded} {
				if len(input) > 3 { // short inputs such as "c1" are words of the text
					assert.NotContains(t, msg, input)
					assert.NotContains(t, hint, input)
				}
			}
			for _, c := range e.Available {
				assert.NotContains(t, msg, c)
			}
		})
	}
}

func TestUnmarshalJSONRejects(t *testing.T) {
	for _, in := range []string{
		`null`,
		`[]`,
		`"invalid_id"`,
		`{}`,
		`{"type":"adapter_error"}`,
		`{"type":"other","code":"invalid_id"}`,
		`{"type":"adapter_error","code":7}`,
		`{"type":"adapter_error","code":"invalid_id","offset":"x"}`,
		`{"type":"adapter_error","code":"x",`,
		`{"type":"adapter_error","code":"ambiguous_connection","available_connections_omitted":-1}`,
		`{"type":"adapter_error","code":"ambiguous_connection","available_ids_omitted":-5}`,
	} {
		t.Run(in, func(t *testing.T) {
			e := AmbiguousConnection([]string{"kept"})
			before := *e
			err := e.UnmarshalJSON([]byte(in))
			require.Error(t, err)
			assert.Equal(t, before, *e, "e is left unchanged")
		})
	}
}

func TestNewError(t *testing.T) {
	e := NewError(CodeNotFound, "no ticket has this key", "search tickets again")
	require.ErrorIs(t, e, ErrNotFound)
	assert.False(t, errors.Is(e, ErrInvalidID))
	assert.Equal(t, "no ticket has this key", e.Message())
	assert.Equal(t, "search tickets again", e.Hint())
	assert.Equal(t, -1, e.Offset)
	assert.Equal(t, "mcpid: not_found: no ticket has this key; search tickets again", e.Error())

	t.Run("says only what it was given", func(t *testing.T) {
		e := NewError(CodeInvalidID, "", "")
		assert.Empty(t, e.Message())
		assert.Empty(t, e.Hint())
		assert.Equal(t, "mcpid: invalid_id", e.Error())
		require.ErrorIs(t, e, ErrInvalidID)
	})
	t.Run("unknown code has no sentinel", func(t *testing.T) {
		e := NewError("quota_exceeded", "m", "h")
		for _, s := range []error{ErrInvalidID, ErrNotFound, ErrResourceUnavailable, ErrInvalidResourceResponse} {
			assert.False(t, errors.Is(e, s))
		}
	})
}

func TestNilError(t *testing.T) {
	var e *Error
	assert.Equal(t, "mcpid: <nil>", e.Error())
	assert.Empty(t, e.Message())
	assert.Empty(t, e.Hint())
	assert.False(t, e.Is(ErrInvalidID))
	b, err := json.Marshal(e)
	require.NoError(t, err)
	assert.Equal(t, "null", string(b))
}

func TestErrorText(t *testing.T) {
	// The log text: the code, the message, the inputs quoted with %q (the
	// empty id too) and the hint; no raw control character whatever the
	// input held.
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"control", errOf(Parse("c/s:r\nx")), `mcpid: invalid_id: record segment contains control character U+000A (offset=5, id="c/s:r\nx"); pass the id exactly as search returned it, as one value, unedited`},
		{"empty id", errOf(Parse("")), `mcpid: invalid_id: id is empty (id=""); pass the id exactly as search returned it, as one value, unedited`},
		{"conflict", errOf(ResolveFetch("c1/:x", "c2")), `mcpid: conflicting_connection_id: the id names a different connection than connection_id (connection_id="c2", embedded_connection_id="c1"); pass the id alone, without connection_id`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.err.Error()); diff != "" {
				t.Errorf("Error() (-want +got):\n%s", diff)
			}
		})
	}
}

// errOf returns the error of a two-valued call.
func errOf(_ any, err error) error { return err }

func TestAmbiguousConnection(t *testing.T) {
	avail := []string{"cin_4f2a", "cin_9b7e"}
	err := error(AmbiguousConnection(avail))
	require.ErrorIs(t, err, ErrAmbiguousConnection)
	assert.False(t, errors.Is(err, ErrInvalidID))
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeAmbiguousConnection, e.Code)
	assert.Equal(t, avail, e.Available)
	assert.Equal(t, -1, e.Offset)
	assert.Empty(t, e.Field)
}

func TestErrorWrapped(t *testing.T) {
	_, err := ResolveFetch("c1/s:r", "c2")
	wrapped := fmt.Errorf("fetch: %w", err)
	require.ErrorIs(t, wrapped, ErrConflictingConnectionID)
	var e *Error
	require.ErrorAs(t, wrapped, &e)
	assert.Equal(t, "c1", e.Embedded)
	assert.Equal(t, "c2", e.Input)
}

func TestSentinelPerCode(t *testing.T) {
	codes := []Code{CodeInvalidID, CodeInvalidConnectionID, CodeConflictingConnectionID, CodeAmbiguousConnection,
		CodeNotFound, CodeResourceUnavailable, CodeResourceError, CodeInvalidResourceResponse, CodeUnknownID, CodeForbidden}
	seen := map[error]bool{}
	for _, c := range codes {
		e := &Error{Code: c, Offset: -1}
		s := sentinel(c)
		require.NotNil(t, s, c)
		assert.False(t, seen[s], "one sentinel per code")
		seen[s] = true
		assert.True(t, errors.Is(e, s))
		assert.Equal(t, "mcpid: "+string(c), s.Error())
		assert.NotEmpty(t, e.Message(), c)
		assert.NotEmpty(t, e.Hint(), c)
	}
	assert.False(t, (&Error{Code: "other"}).Is(nil))
}

// An *Error's fields are exported: one whose Offset a caller moved out of
// Input still words its message instead of panicking.
func TestErrorOffsetMovedByCaller(t *testing.T) {
	_, err := Parse("s:a\x01b")
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "record segment contains control character U+0001", e.Message())
	// -1 and past the end index nothing; 0 is the 's' and 4 the 'b',
	// no control character to name.
	for _, off := range []int{-1, 0, 4, len(e.Input), 1 << 20} {
		e.Offset = off
		assert.Equal(t, "record segment contains a control character", e.Message(), "offset %d", off)
	}
}

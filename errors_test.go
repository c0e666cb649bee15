package mcpid

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEnvelopeGolden pins the JSON envelope of every code, byte for byte:
// servers put it in structuredContent and agents parse it.
func TestEnvelopeGolden(t *testing.T) {
	many := make([]string, 23)
	for i := range many {
		many[i] = fmt.Sprintf("c%02d", i)
	}
	errOf := func(_ any, err error) error { return err }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{
			name: "invalid_id",
			err:  errOf(Parse("cin_a/orders:../../etc/passwd")),
			want: `{"type":"adapter_error","code":"invalid_id","message":"mcpid: invalid_id: id record segment contains \"..\" at offset 13 in \"cin_a/orders:../../etc/passwd\"; pass the id exactly as search returned it, as one value, unedited","hint":"pass the id exactly as search returned it, as one value, unedited","field":"id","segment":"record","offset":13,"id":"cin_a/orders:../../etc/passwd"}`,
		},
		{
			name: "invalid_id, empty",
			err:  errOf(Parse("")),
			want: `{"type":"adapter_error","code":"invalid_id","message":"mcpid: invalid_id: id is empty; pass the id exactly as search returned it, as one value, unedited","hint":"pass the id exactly as search returned it, as one value, unedited","field":"id","id":""}`,
		},
		{
			name: "invalid_connection_id",
			err:  errOf(ResolveFetch("s:r", "a/b")),
			want: `{"type":"adapter_error","code":"invalid_connection_id","message":"mcpid: invalid_connection_id: connection_id contains '/' at offset 1 in \"a/b\"; pass connection_id exactly as search returned it, or omit it","hint":"pass connection_id exactly as search returned it, or omit it","field":"connection_id","offset":1,"connection_id":"a/b"}`,
		},
		{
			name: "conflicting_connection_id",
			err:  errOf(ResolveFetch("c1/s:r", "c2")),
			want: `{"type":"adapter_error","code":"conflicting_connection_id","message":"mcpid: conflicting_connection_id: id embeds connection \"c1\" but connection_id is \"c2\"; pass the id alone, since it already names its connection, or pass connection_id \"c1\"","hint":"pass the id alone, since it already names its connection, or pass connection_id \"c1\"","field":"connection_id","segment":"connection","connection_id":"c2","embedded_connection_id":"c1"}`,
		},
		{
			name: "ambiguous_connection",
			err:  AmbiguousConnection([]string{"cin_4f2a", "cin_9b7e"}),
			want: `{"type":"adapter_error","code":"ambiguous_connection","message":"mcpid: ambiguous_connection: the record exists in 2 connections; retry with connection_id set to one of the available connections","hint":"retry with connection_id set to one of the available connections","available_connections":["cin_4f2a","cin_9b7e"],"retry_with":"connection_id"}`,
		},
		{
			name: "ambiguous_connection, capped",
			err:  AmbiguousConnection(many),
			want: `{"type":"adapter_error","code":"ambiguous_connection","message":"mcpid: ambiguous_connection: the record exists in 23 connections; retry with connection_id set to one of the available connections","hint":"retry with connection_id set to one of the available connections","available_connections":["c00","c01","c02","c03","c04","c05","c06","c07","c08","c09","c10","c11","c12","c13","c14","c15","c16","c17","c18","c19"],"available_connections_omitted":3,"retry_with":"connection_id"}`,
		},
		{
			name: "ambiguous_connection, none listed",
			err:  AmbiguousConnection(nil),
			want: `{"type":"adapter_error","code":"ambiguous_connection","message":"mcpid: ambiguous_connection: the record exists in 0 connections; retry with connection_id set to one of the available connections","hint":"retry with connection_id set to one of the available connections","available_connections":[],"retry_with":"connection_id"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Error(t, tt.err)
			got, err := json.Marshal(tt.err)
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("envelope (-want +got):\n%s", diff)
			}
			// The message in the envelope is the error's own.
			var env map[string]any
			require.NoError(t, json.Unmarshal(got, &env))
			assert.Equal(t, tt.err.Error(), env["message"])
		})
	}
}

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

func TestHintPerCode(t *testing.T) {
	for _, c := range []Code{CodeInvalidID, CodeInvalidConnectionID, CodeConflictingConnectionID, CodeAmbiguousConnection} {
		e := &Error{Code: c, Offset: -1}
		assert.NotEqual(t, (&Error{Code: "other"}).Hint(), e.Hint(), c)
		assert.Contains(t, e.Error(), string(c))
		assert.True(t, errors.Is(e, sentinel(c)))
	}
	assert.False(t, (&Error{Code: "other"}).Is(nil))
}

package searchfetch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// TestBareIDs: with BareIDs, an id the server issued before the grammar
// (one mcpid.Parse rejects, or, with a Sealer, one that does not open)
// is a record's key, looked up whole in the connection connection_id
// names, else in DefaultConnection; the request's Handle is that key's
// opaque handle there, and the document echoes the id as given. An id
// that parses is read by the grammar. With no connection to read it in,
// or a key no handle can hold, it is invalid_id.
func TestBareIDs(t *testing.T) {
	prod := &searchfetch.Options{BareIDs: true, DefaultConnection: "prod"}
	tests := []struct {
		name  string
		opts  *searchfetch.Options
		args  string
		want  mcpid.FetchRequest // the request the backend gets
		code  mcpid.Code         // else the error's code
		field string
	}{
		{"bare alone", prod, `{"id":"rYdddlPWk"}`,
			mcpid.FetchRequest{Handle: mcpid.MustParse("prod/:rYdddlPWk"), ConnectionID: "prod", Scope: mcpid.ScopeDefault, EchoID: "rYdddlPWk"}, "", ""},
		{"bare with connection_id", prod, `{"id":"rYdddlPWk","connection_id":"staging"}`,
			mcpid.FetchRequest{Handle: mcpid.MustParse("staging/:rYdddlPWk"), ConnectionID: "staging", Scope: mcpid.ScopeExplicit, EchoID: "rYdddlPWk"}, "", ""},
		{"bare with a slash after its colon", prod, `{"id":"a:b/c"}`,
			mcpid.FetchRequest{Handle: mcpid.MustParse("prod/:a:b/c"), ConnectionID: "prod", Scope: mcpid.ScopeDefault, EchoID: "a:b/c"}, "", ""},
		{"bare without a default", &searchfetch.Options{BareIDs: true}, `{"id":"rYdddlPWk","connection_id":"staging"}`,
			mcpid.FetchRequest{Handle: mcpid.MustParse("staging/:rYdddlPWk"), ConnectionID: "staging", Scope: mcpid.ScopeExplicit, EchoID: "rYdddlPWk"}, "", ""},
		{"a shown id", prod, `{"id":"staging/:rYdddlPWk"}`,
			mcpid.FetchRequest{Handle: mcpid.MustParse("staging/:rYdddlPWk"), ConnectionID: "staging", Scope: mcpid.ScopeEmbedded, EchoID: "staging/:rYdddlPWk"}, "", ""},
		{"a legacy id parses", prod, `{"id":"dash:rYdddlPWk"}`,
			mcpid.FetchRequest{Handle: mcpid.MustParse("dash:rYdddlPWk"), EchoID: "dash:rYdddlPWk"}, "", ""},

		{"no connection", &searchfetch.Options{BareIDs: true}, `{"id":"rYdddlPWk"}`, mcpid.FetchRequest{}, mcpid.CodeInvalidID, "id"},
		{"a control character", prod, `{"id":"rYd\u0001dd"}`, mcpid.FetchRequest{}, mcpid.CodeInvalidID, "id"},
		{"a bad connection_id", prod, `{"id":"rYdddlPWk","connection_id":"st\u0000"}`, mcpid.FetchRequest{}, mcpid.CodeInvalidConnectionID, "connection_id"},
		{"the id's own name", &searchfetch.Options{BareIDs: true, IDArg: "uid"}, `{"uid":"rYdddlPWk"}`, mcpid.FetchRequest{}, mcpid.CodeInvalidID, "uid"},
		{"without BareIDs", nil, `{"id":"rYdddlPWk"}`, mcpid.FetchRequest{}, mcpid.CodeInvalidID, "id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recorder{doc: searchfetch.Document{Title: "d", Text: "t"}}
			res := searchfetch.New(b, tt.opts).Fetch(context.Background(), raw(tt.args))
			if tt.code != "" {
				e := requireError(t, res, tt.code)
				assert.Equal(t, tt.field, e.Field)
				assert.Zero(t, b.calls())
				return
			}
			require.False(t, res.IsError, res.Text)
			require.Len(t, b.requests, 1)
			assert.Equal(t, tt.want, b.requests[0])
			var doc searchfetch.Document
			require.NoError(t, json.Unmarshal([]byte(res.Text), &doc))
			assert.Equal(t, tt.want.EchoID, doc.ID)
		})
	}
}

// TestBareIDsNameConnectionID: a bare id with nowhere to read it asks for
// connection_id.
func TestBareIDsNameConnectionID(t *testing.T) {
	res := searchfetch.New(&recorder{}, &searchfetch.Options{BareIDs: true}).Fetch(context.Background(), raw(`{"id":"rYdddlPWk"}`))
	e := requireError(t, res, mcpid.CodeInvalidID)
	assert.Contains(t, e.Hint(), "connection_id")
}

// TestBareIDsSealed: with a Sealer, an id that opens is read by the
// grammar, and every other id is bare, even one that parses: a cut or
// made-up id is looked up whole, and finds nothing, as before.
func TestBareIDsSealed(t *testing.T) {
	s := sealer(t)
	b := &recorder{doc: searchfetch.Document{Title: "d", Text: "t"}}
	tools := searchfetch.New(b, &searchfetch.Options{Sealer: s, BareIDs: true, DefaultConnection: "prod"})
	ctx := context.Background()
	for _, id := range []string{s.Seal("staging/:rYdddlPWk"), "rYdddlPWk", "staging/:rYdddlPWk"} {
		res := tools.Fetch(ctx, mustJSON(t, map[string]string{"id": id}))
		require.False(t, res.IsError, res.Text)
	}
	require.Len(t, b.requests, 3)
	assert.Equal(t, []string{"staging", "prod", "prod"},
		[]string{b.requests[0].ConnectionID, b.requests[1].ConnectionID, b.requests[2].ConnectionID})
	assert.Equal(t, mcpid.MustParse("prod/:staging/:rYdddlPWk"), b.requests[2].Handle)
	assert.Equal(t, mcpid.ScopeDefault, b.requests[2].Scope)
}

// TestBareIDsAuthorized: a bare id is authorized as any fetch, with the
// connection it is read in, and the id as given.
func TestBareIDsAuthorized(t *testing.T) {
	var got []searchfetch.Access
	b := &recorder{doc: searchfetch.Document{Title: "d", Text: "t"}}
	tools := searchfetch.New(b, &searchfetch.Options{BareIDs: true, DefaultConnection: "prod",
		Authorize: func(_ context.Context, a searchfetch.Access) error {
			got = append(got, a)
			if a.ConnectionID == "staging" {
				return mcpid.ErrForbidden
			}
			return nil
		}})
	ctx := context.Background()
	require.False(t, tools.Fetch(ctx, raw(`{"id":"rYdddlPWk"}`)).IsError)
	requireError(t, tools.Fetch(ctx, raw(`{"id":"rYdddlPWk","connection_id":"staging"}`)), mcpid.CodeForbidden)
	want := []searchfetch.Access{
		{Tool: "fetch", ConnectionID: "prod", ID: "rYdddlPWk", Handle: mcpid.MustParse("prod/:rYdddlPWk")},
		{Tool: "fetch", ConnectionID: "staging", ID: "rYdddlPWk", Handle: mcpid.MustParse("staging/:rYdddlPWk")},
	}
	assert.Equal(t, want, got)
	assert.Len(t, b.requests, 1)
}

// TestBareIDsChatGPT: in ChatGPT mode, a bare id reads from
// DefaultConnection.
func TestBareIDsChatGPT(t *testing.T) {
	b := &recorder{doc: searchfetch.Document{Title: "d", Text: "t"}}
	tools := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, BareIDs: true, DefaultConnection: "prod"})
	res := tools.Fetch(context.Background(), raw(`{"id":"rYdddlPWk"}`))
	require.False(t, res.IsError, res.Text)
	require.Len(t, b.requests, 1)
	assert.Equal(t, "prod", b.requests[0].ConnectionID)
}

// FuzzBareIDs: for any id, with BareIDs and a default connection, Resolve
// reads it by the grammar exactly when mcpid.Parse accepts it (as
// mcpid.ResolveFetch does), and otherwise as a key looked up whole in the
// default connection, or refuses it as invalid_id: never another record.
// With a Sealer, every id that does not open is such a key.
func FuzzBareIDs(f *testing.F) {
	for _, id := range []string{"rYdddlPWk", "a:b", "a/b:c", "a:b/c", "a/:b", "", "a\x00b", "a\xffb", "https://x.example/y", "prod/:x~abcdefg"} {
		f.Add(id)
	}
	ctx := context.Background()
	s, err := mcpid.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	require.NoError(f, err)
	plain := searchfetch.New(&recorder{}, &searchfetch.Options{BareIDs: true, DefaultConnection: "prod"})
	sealed := searchfetch.New(&recorder{}, &searchfetch.Options{BareIDs: true, DefaultConnection: "prod", Sealer: s})
	f.Fuzz(func(t *testing.T, id string) {
		checkBare := func(req mcpid.FetchRequest, err error) {
			if err != nil {
				require.ErrorIs(t, err, mcpid.ErrInvalidID)
				_, encErr := mcpid.Encode("prod", "", id)
				require.True(t, encErr != nil || len(id) > searchfetch.MaxArgumentsSize, "a key the opaque handle holds is read")
				return
			}
			assert.Equal(t, mcpid.FetchRequest{Handle: mcpid.MustParse(mustEncode(t, id)), ConnectionID: "prod", Scope: mcpid.ScopeDefault, EchoID: id}, req)
		}
		req, err := plain.Resolve(ctx, "fetch", id, "")
		if _, perr := mcpid.Parse(id); perr == nil {
			want, werr := mcpid.ResolveFetch(id, "")
			require.NoError(t, werr)
			require.NoError(t, err)
			assert.Equal(t, want, req)
		} else {
			checkBare(req, err)
		}
		if _, oerr := s.Open(id); oerr != nil {
			checkBare(sealed.Resolve(ctx, "fetch", id, ""))
		}
	})
}

// mustEncode returns the opaque id of key in the connection prod.
func mustEncode(t *testing.T, key string) string {
	t.Helper()
	id, err := mcpid.Encode("prod", "", key)
	require.NoError(t, err)
	return id
}

// TestBareIDsAcceptUnsealed: with AcceptUnsealed too, an unsealed id that
// parses is read by the grammar, and one that does not is bare.
func TestBareIDsAcceptUnsealed(t *testing.T) {
	b := &recorder{doc: searchfetch.Document{Title: "d", Text: "t"}}
	tools := searchfetch.New(b, &searchfetch.Options{Sealer: sealer(t), AcceptUnsealed: true, BareIDs: true, DefaultConnection: "prod"})
	for _, id := range []string{"staging/:rYdddlPWk", "rYdddlPWk"} {
		res := tools.Fetch(context.Background(), mustJSON(t, map[string]string{"id": id}))
		require.False(t, res.IsError, res.Text)
	}
	require.Len(t, b.requests, 2)
	assert.Equal(t, mcpid.FetchRequest{Handle: mcpid.MustParse("staging/:rYdddlPWk"), ConnectionID: "staging", Scope: mcpid.ScopeEmbedded, EchoID: "staging/:rYdddlPWk"}, b.requests[0])
	assert.Equal(t, mcpid.FetchRequest{Handle: mcpid.MustParse("prod/:rYdddlPWk"), ConnectionID: "prod", Scope: mcpid.ScopeDefault, EchoID: "rYdddlPWk"}, b.requests[1])
}

package searchfetch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// TestResolve: a server's own tool resolves an id as fetch does (the
// seal opened, the alias mapped, a bare id scoped), and the authorizer is
// asked with that tool's name and the caller of the call, without any
// backend call.
func TestResolve(t *testing.T) {
	s := sealer(t)
	a, err := mcpid.NewAliases(map[string]string{"projects/acme/instances/staging": "staging"})
	require.NoError(t, err)
	var asked []searchfetch.Access
	var callers []string
	b := &recorder{}
	tools := searchfetch.New(b, &searchfetch.Options{Sealer: s, Aliases: a, BareIDs: true, DefaultConnection: "prod", IDArg: "uid",
		Authorize: func(ctx context.Context, acc searchfetch.Access) error {
			asked = append(asked, acc)
			c, _ := searchfetch.CallerFrom(ctx)
			callers = append(callers, c.UserID)
			return nil
		}})
	ctx := searchfetch.WithCaller(context.Background(), searchfetch.Caller{UserID: "ana"})
	tests := []struct {
		name, id, conn string
		want           mcpid.FetchRequest
	}{
		{"sealed and aliased", s.Seal("staging/:rYdddlPWk"), "",
			mcpid.FetchRequest{Handle: mcpid.MustParse("staging/:rYdddlPWk"), ConnectionID: "projects/acme/instances/staging", Scope: mcpid.ScopeEmbedded, EchoID: "staging/:rYdddlPWk"}},
		{"bare alone", "rYdddlPWk", "",
			mcpid.FetchRequest{Handle: mcpid.MustParse("prod/:rYdddlPWk"), ConnectionID: "prod", Scope: mcpid.ScopeDefault, EchoID: "rYdddlPWk"}},
		{"bare in an aliased connection", "rYdddlPWk", "staging",
			mcpid.FetchRequest{Handle: mcpid.MustParse("staging/:rYdddlPWk"), ConnectionID: "projects/acme/instances/staging", Scope: mcpid.ScopeExplicit, EchoID: "rYdddlPWk"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			req, err := tools.Resolve(ctx, "update_dashboard", tt.id, tt.conn)
			require.NoError(t, err)
			assert.Equal(t, tt.want, req)
			want := []searchfetch.Access{{Tool: "update_dashboard", ConnectionID: tt.want.ConnectionID, ID: tt.id, Handle: tt.want.Handle}}
			assert.Equal(t, want, asked)
		})
	}
	assert.Equal(t, []string{"ana", "ana", "ana"}, callers)
	assert.Zero(t, b.calls())
}

// TestResolveErrors: Resolve's error is the *mcpid.Error a tool answers
// with: the id's own name as its Field, the authorizer's denial as
// forbidden, in the tools' words.
func TestResolveErrors(t *testing.T) {
	tools := searchfetch.New(&recorder{}, &searchfetch.Options{IDArg: "uid", BareIDs: true,
		Authorize: func(_ context.Context, a searchfetch.Access) error {
			if a.Tool == "update_dashboard" {
				return mcpid.ErrForbidden // a read-only caller
			}
			return nil
		}})
	ctx := context.Background()
	tests := []struct {
		name, tool, id, conn string
		code                 mcpid.Code
		field                string
	}{
		{"a write refused", "update_dashboard", "prod/:rYdddlPWk", "", mcpid.CodeForbidden, ""},
		{"no connection", "get_dashboard_summary", "rYdddlPWk", "", mcpid.CodeInvalidID, "uid"},
		{"not UTF-8", "get_dashboard_summary", "rYd\xffdd", "prod", mcpid.CodeInvalidID, "uid"},
		{"too large", "get_dashboard_summary", strings.Repeat("a", searchfetch.MaxArgumentsSize+1), "prod", mcpid.CodeInvalidID, "uid"},
		{"conflicting", "get_dashboard_summary", "prod/:rYdddlPWk", "staging", mcpid.CodeConflictingConnectionID, "connection_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tools.Resolve(ctx, tt.tool, tt.id, tt.conn)
			var e *mcpid.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.code, e.Code)
			assert.Equal(t, tt.field, e.Field)
		})
	}
}

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcpid/mcpid/searchfetch"
)

// grants are the bearer tokens the -http mode accepts, each with the
// connections its holder may read, from the -grants file: a JSON object
// whose keys are tokens and whose values are lists of connection ids,
//
//	{"ana-token": ["cin_4f2a", "cin_9b1c"], "bob-token": ["cin_9b7e"]}
//
// The caller of a token is its holder: a UserID made of the token's
// SHA-256 (so that no log shows the token, and the go-sdk binds each
// session to one token) and, as its Scopes, the connections it may read,
// which [authorizeGrants] checks on every call. The connection "" grants
// the unscoped fetch of a legacy id, where the backend picks the
// connection: grant it only with a backend that checks the connection it
// picks, which this example's does not.
type grants map[[sha256.Size]byte]searchfetch.Caller

// maxGrantsFile bounds the -grants file: a demonstration's grants are a
// few lines.
const maxGrantsFile = 1 << 20

// loadGrants reads the -grants file at path.
func loadGrants(path string) (grants, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-grants: %w", err)
	}
	if len(data) > maxGrantsFile {
		return nil, fmt.Errorf("-grants %s: %d bytes; at most %d", path, len(data), maxGrantsFile)
	}
	var byToken map[string][]string
	if err := json.Unmarshal(data, &byToken); err != nil {
		return nil, fmt.Errorf("-grants %s: want a JSON object of tokens to lists of connection ids: %w", path, err)
	}
	if len(byToken) == 0 {
		return nil, fmt.Errorf("-grants %s: no token", path)
	}
	g := make(grants, len(byToken))
	for token, conns := range byToken {
		if token == "" || strings.ContainsAny(token, " \t\r\n") {
			return nil, fmt.Errorf("-grants %s: a token is empty or holds a space", path)
		}
		if conns == nil {
			return nil, fmt.Errorf("-grants %s: a token has no list of connections", path)
		}
		sum := sha256.Sum256([]byte(token))
		g[sum] = searchfetch.Caller{
			UserID: "token-" + hex.EncodeToString(sum[:8]),
			Scopes: slices.Clone(conns),
		}
	}
	return g, nil
}

// caller returns the caller of token.
func (g grants) caller(token string) (searchfetch.Caller, bool) {
	c, ok := g[sha256.Sum256([]byte(token))]
	return c, ok
}

// tokenInfo is the go-sdk's TokenVerifier over g, for its bearer-token
// middleware (-sdk gosdk): gosdk hands the TokenInfo to the tools as their
// caller.
func (g grants) tokenInfo(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	c, ok := g.caller(token)
	if !ok {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: c.UserID, Scopes: c.Scopes}, nil
}

// verify is mcpgo's HTTPOptions.Verify over g (-sdk mcpgo): mcp-go has no
// token verification of its own.
func (g grants) verify(r *http.Request) (searchfetch.Caller, error) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return searchfetch.Caller{}, errNoGrant
	}
	c, ok := g.caller(token)
	if !ok {
		return searchfetch.Caller{}, errNoGrant
	}
	return c, nil
}

// errNoGrant is the refusal of a token, or of a connection, that the
// grants do not name.
var errNoGrant = errors.New("no grant")

// authorizeGrants is the searchfetch.Options.Authorize of the -grants
// mode: the caller may read the connections its token grants (its
// Scopes), and nothing else. A call without a caller, which the HTTP
// handlers never let through, is denied.
func authorizeGrants(ctx context.Context, a searchfetch.Access) error {
	c, ok := searchfetch.CallerFrom(ctx)
	if !ok || !slices.Contains(c.Scopes, a.ConnectionID) {
		return errNoGrant
	}
	return nil
}

package redisstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/internal/chainguard"
)

// KeyPrefix starts the Redis key of every chain, and the channel on which
// its revisions are published: the chain "mcpid" is the key
// "mcpid:toolname:mcpid".
const KeyPrefix = "mcpid:toolname:"

// ErrNoChain is the error of every method of a [Store] made with an empty
// chain name.
var ErrNoChain = errors.New("redisstore: the chain name is empty")

// ErrNoTable is the error of [Store.Swap] given a nil table.
var ErrNoTable = errors.New("redisstore: Swap of a nil table")

// Store is a chain of tool names kept in Redis. It implements
// [toolname.Store] and [toolname.Watcher]. Its methods are safe for
// concurrent use. Make it with [New].
type Store struct {
	client redis.UniversalClient
	chain  string
	key    string
	guard  *chainguard.Guard[*toolname.Table]
}

var (
	_ toolname.Store   = (*Store)(nil)
	_ toolname.Watcher = (*Store)(nil)
)

// New returns the store of the named chain on client: one replica's
// handle. Every replica of a gateway opens its own on the same chain.
// New does not reach the server: the first [Store.Load] or [Store.Swap]
// does, and reports an error if it cannot. An empty chain name makes
// every method return [ErrNoChain]. The client stays the caller's, to
// close.
func New(client redis.UniversalClient, chain string) *Store {
	return &Store{
		client: client,
		chain:  chain,
		key:    KeyPrefix + chain,
		guard:  chainguard.New(decode),
	}
}

// decode is the guard's decoder: a stored value's table.
func decode(raw []byte) (*toolname.Table, error) {
	n := new(toolname.Table)
	if err := n.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return n, nil
}

// loadScript reads a chain atomically. Given the revision whose table the
// caller keeps (ARGV[1]), it returns:
//
//	{}                 no key: the chain was never stored
//	{"!type", type}    the key is not a hash
//	{"!fields"}        the hash lacks its "table" field, or a non-empty "rev"
//	{rev}              rev is ARGV[1]: the caller's table is the latest
//	{rev, table}       the latest revision and its table
var loadScript = redis.NewScript(`
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'none' then return {} end
if kind ~= 'hash' then return {'!type', kind} end
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev or rev == '' or redis.call('HEXISTS', KEYS[1], 'table') == 0 then return {'!fields'} end
if rev == ARGV[1] then return {rev} end
return {rev, redis.call('HGET', KEYS[1], 'table')}
`)

// swapScript stores a table atomically: when the stored revision is
// ARGV[1] (or, for an ARGV[1] of "", when the key does not exist), it sets
// the revision to ARGV[2] and the table to ARGV[3], publishes ARGV[2] on
// the channel named as the key, and returns 1; otherwise it writes
// nothing and returns 0. A key that is not a table is left as it is:
// HGET fails on another type, and a hash without both fields is never
// the latest revision.
var swapScript = redis.NewScript(`
if ARGV[1] == '' then
	if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
elseif redis.call('HGET', KEYS[1], 'rev') ~= ARGV[1] or redis.call('HEXISTS', KEYS[1], 'table') == 0 then
	return 0
end
redis.call('HSET', KEYS[1], 'rev', ARGV[2], 'table', ARGV[3])
redis.call('PUBLISH', KEYS[1], ARGV[2])
return 1
`)

// Load returns the chain's latest table and its revision, or nil and ""
// for a chain never stored. When the revision is the one this Store saw
// last, it returns the table it kept, without transferring or decoding
// it again. It refuses a chain that went backwards, or a table that does
// not continue the one this Store holds (an error matching
// [toolname.ErrRollback]), and a key that holds no table (one matching
// [toolname.ErrInvalidTable]); an error of Redis or of ctx is returned
// wrapped.
func (s *Store) Load(ctx context.Context) (*toolname.Table, toolname.Revision, error) {
	if s.chain == "" {
		return nil, "", ErrNoChain
	}
	n, rev, err := s.guard.Load(func(cached string) (string, []byte, error) {
		return s.read(ctx, cached)
	})
	if err != nil {
		return nil, "", s.wrap(err)
	}
	return n, toolname.Revision(rev), nil
}

// read runs loadScript and returns the latest revision and, unless it is
// cached, its table.
func (s *Store) read(ctx context.Context, cached string) (string, []byte, error) {
	reply, err := loadScript.Run(ctx, s.client, []string{s.key}, cached).StringSlice()
	if err != nil {
		return "", nil, err
	}
	switch {
	case len(reply) == 0:
		return "", nil, nil
	case reply[0] == "!type" && len(reply) == 2:
		return "", nil, fmt.Errorf("the key %q holds a %s, not a table: %w", s.key, reply[1], toolname.ErrInvalidTable)
	case reply[0] == "!fields":
		return "", nil, fmt.Errorf("the hash %q lacks its table or a revision: %w", s.key, toolname.ErrInvalidTable)
	case len(reply) == 1:
		return reply[0], nil, nil
	case len(reply) == 2:
		return reply[0], []byte(reply[1]), nil
	}
	return "", nil, fmt.Errorf("the load script answered %d values", len(reply))
}

// Swap stores next as the table after rev if rev is still the chain's
// latest revision ("" for a chain never stored), publishes the new
// revision to every [Store.Watch], and returns it. Otherwise it stores
// nothing and returns a [*toolname.Error] matching [toolname.ErrStale].
// A key that holds no table is never written over: Swap then returns
// ErrStale, or Redis's error for a key of another type. An error of
// Redis or of ctx is returned wrapped: the table may or may not have been
// stored, which the next Load tells.
func (s *Store) Swap(ctx context.Context, rev toolname.Revision, next *toolname.Table) (toolname.Revision, error) {
	if s.chain == "" {
		return "", ErrNoChain
	}
	if next == nil {
		return "", ErrNoTable
	}
	data, err := next.MarshalJSON()
	if err != nil {
		return "", s.wrap(err)
	}
	_, gen := next.Chain()
	newRev := "g" + strconv.FormatUint(gen, 10) + "-" + rand.Text()
	stored, err := swapScript.Run(ctx, s.client, []string{s.key}, string(rev), newRev, data).Int()
	if err != nil {
		return "", s.wrap(err)
	}
	if stored == 0 {
		return "", s.wrap(&toolname.Error{Code: toolname.CodeStale, Field: "revision", Index: -1, Offset: -1, Input: string(rev)})
	}
	s.guard.Stored(newRev, next)
	return toolname.Revision(newRev), nil
}

// Hold sets the table this Store holds, before its first Load (a
// replica's backup): a later table must continue it, as
// [toolname.Holder] says. Its error is wrapped like Load's.
func (s *Store) Hold(n *toolname.Table) error {
	if err := s.guard.Hold(n); err != nil {
		return s.wrap(err)
	}
	return nil
}

// wrap names the store and the chain in err, which stays what it is for
// [errors.Is] and [errors.As].
func (s *Store) wrap(err error) error {
	return fmt.Errorf("redisstore: chain %q: %w", s.chain, err)
}

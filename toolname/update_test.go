package toolname_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
)

// TestUpdateRecordsVersion1Options: a version 1 table is stored again by
// the first Update, even with no new name, to record the options; its
// chain id and names carry over.
func TestUpdateRecordsVersion1Options(t *testing.T) {
	const v1 = `{"version":1,"names":[{"server":"a","tool":"x","name":"x"}],"retired":[{"server":"b","tool":"y","name":"y"}]}`
	s := newMemServer()
	s.mu.Lock()
	rev0 := s.put("c", []byte(v1))
	s.mu.Unlock()
	st := s.open("c")
	old, _, err := st.Load(context.Background())
	require.NoError(t, err)
	id0, gen0 := old.Chain()
	assert.Zero(t, gen0)

	n, rev, err := toolname.Update(context.Background(), st, toolname.OpenAI, []toolname.Key{{Server: "a", Tool: "x"}}, toolname.WithReserved("help"))
	require.NoError(t, err)
	assert.NotEqual(t, rev0, rev, "the version 1 table is stored again")
	id, gen := n.Chain()
	assert.Equal(t, id0, id)
	assert.Equal(t, uint64(1), gen)

	fresh := s.open("c")
	loaded, _, err := fresh.Load(context.Background())
	require.NoError(t, err)
	data, err := json.Marshal(loaded)
	require.NoError(t, err)
	assert.JSONEq(t, `{"version":2,"chain":"`+id0+`","generation":1,
		"options":{"profile":"OpenAI","max_len":64,"qualify_all":false,"reserved":["help"]},
		"names":[{"server":"a","tool":"x","name":"x"}],
		"retired":[{"server":"b","tool":"y","name":"y"}]}`, string(data))

	// Now the options are the chain's.
	_, _, err = toolname.Update(context.Background(), fresh, toolname.OpenAI, []toolname.Key{{Server: "a", Tool: "x"}})
	require.ErrorIs(t, err, toolname.ErrChainMismatch)
	_, again, err := toolname.Update(context.Background(), fresh, toolname.OpenAI, []toolname.Key{{Server: "a", Tool: "x"}}, toolname.WithReserved("help"))
	require.NoError(t, err)
	assert.Equal(t, rev, again, "nothing new, nothing stored")
}

// TestUpdateMismatchNamesBoth: the error names the options the chain
// records and those given.
func TestUpdateMismatchNamesBoth(t *testing.T) {
	st := newMemServer().open("c")
	ctx := context.Background()
	_, _, err := toolname.Update(ctx, st, toolname.Portable, []toolname.Key{{Server: "a", Tool: "x"}}, toolname.WithQualifyAll())
	require.NoError(t, err)
	_, _, err = toolname.Update(ctx, st, toolname.MCP, []toolname.Key{{Server: "a", Tool: "x"}}, toolname.WithReserved("b", "a"))
	require.ErrorIs(t, err, toolname.ErrChainMismatch)
	var e *toolname.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "options", e.Field)
	assert.Equal(t, "profile=MCP MaxLen=128 QualifyAll=false Reserved=[a,b]", e.Input)
	assert.Equal(t, "the chain records other naming options: profile=Portable MaxLen=63 QualifyAll=true Reserved=[]", e.Message())
}

// TestUpdateErrors: bad arguments and a failing store stop Update before
// anything is stored.
func TestUpdateErrors(t *testing.T) {
	ctx := context.Background()
	s := newMemServer()
	st := s.open("c")
	_, _, err := toolname.Update(ctx, st, toolname.Profile{MaxLen: 5}, nil)
	require.ErrorIs(t, err, toolname.ErrInvalidProfile)
	_, _, err = toolname.Update(ctx, st, toolname.Portable, []toolname.Key{{Server: "", Tool: "x"}})
	require.ErrorIs(t, err, toolname.ErrInvalidKey)
	_, _, err = toolname.Update(ctx, st, toolname.Portable, nil, toolname.WithReserved("1x"))
	require.ErrorIs(t, err, toolname.ErrInvalidReserved)
	assert.Empty(t, s.chains, "nothing stored")

	boom := errors.New("store unreachable")
	_, _, err = toolname.Update(ctx, failingStore{boom}, toolname.Portable, []toolname.Key{{Server: "a", Tool: "x"}})
	require.ErrorIs(t, err, boom)

	_, err = toolname.Seed(ctx, st, nil)
	require.ErrorIs(t, err, toolname.ErrInvalidTable)

	// An empty chain and no keys: nothing to store.
	n, rev, err := toolname.Update(ctx, st, toolname.Portable, nil)
	require.NoError(t, err)
	assert.Zero(t, n.Len())
	assert.Empty(t, rev)
	assert.Empty(t, s.chains)
}

// failingStore is a store that cannot be reached.
type failingStore struct{ err error }

func (f failingStore) Load(context.Context) (*toolname.Table, toolname.Revision, error) {
	return nil, "", f.err
}

func (f failingStore) Swap(context.Context, toolname.Revision, *toolname.Table) (toolname.Revision, error) {
	return "", f.err
}

package searchfetch_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// TestErrInvalidArguments: errors.Is matches invalid_arguments errors with
// their sentinel, as a tool call returns them and as a client decodes their
// envelope, and matches no other code.
func TestErrInvalidArguments(t *testing.T) {
	tools := searchfetch.New(&recorder{}, nil)
	res := tools.Search(context.Background(), raw(`{"query":17}`))
	require.True(t, res.IsError, res.Text)
	assert.ErrorIs(t, res.Err, searchfetch.ErrInvalidArguments)
	assert.NotErrorIs(t, res.Err, mcpid.ErrInvalidID)

	var decoded mcpid.Error
	require.NoError(t, json.Unmarshal([]byte(res.Text), &decoded))
	assert.ErrorIs(t, &decoded, searchfetch.ErrInvalidArguments)

	for _, err := range []error{
		mcpid.NewError(mcpid.CodeInvalidID, "m", "h"),
		mcpid.NewError("other", "m", "h"),
		errors.New("invalid_arguments"),
	} {
		assert.NotErrorIs(t, err, searchfetch.ErrInvalidArguments, "%v", err)
	}
}

package toolname

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// producedErrors returns one error of every kind the package returns.
func producedErrors(t *testing.T) map[string]error {
	t.Helper()
	out := map[string]error{}
	for _, key := range []string{"no-separator", "a:b::c", "a%3a::c"} {
		_, _, err := Split(key)
		require.Error(t, err)
		out["Split "+key] = err
	}
	for name, keys := range map[string][]Key{
		"empty":   {{"", "t"}},
		"invalid": {{"s", "\xff"}},
	} {
		_, err := Assign(Portable, keys)
		require.Error(t, err)
		out["Assign "+name] = err
	}
	_, err := Assign(Profile{MaxLen: 3}, nil)
	require.Error(t, err)
	out["Assign profile"] = err
	_, err = Assign(Profile{MaxLen: 64}, nil)
	require.Error(t, err)
	out["Assign profile above"] = err
	_, err = Assign(OpenAI, nil, WithReserved("a b"))
	require.Error(t, err)
	out["Assign reserved"] = err
	for name, data := range map[string]string{
		"syntax":  `{`,
		"version": `{"version":7}`,
		"entry":   `{"version":1,"names":[{"server":"s","tool":"t","name":"x.y:z"}]}`,
	} {
		err = new(Names).UnmarshalJSON([]byte(data))
		require.Error(t, err)
		out["UnmarshalJSON "+name] = err
	}
	return out
}

func TestErrorIs(t *testing.T) {
	sentinels := map[Code]error{
		CodeInvalidRoutingKey: ErrInvalidRoutingKey,
		CodeInvalidKey:        ErrInvalidKey,
		CodeInvalidProfile:    ErrInvalidProfile,
		CodeInvalidReserved:   ErrInvalidReserved,
		CodeInvalidNames:      ErrInvalidNames,
	}
	for name, err := range producedErrors(t) {
		t.Run(name, func(t *testing.T) {
			var e *Error
			require.ErrorAs(t, err, &e)
			for code, sentinel := range sentinels {
				assert.Equal(t, code == e.Code, errors.Is(err, sentinel), "errors.Is(err, %s)", code)
			}
			wrapped := fmt.Errorf("gateway: %w", err)
			assert.ErrorIs(t, wrapped, sentinels[e.Code])
			assert.False(t, errors.Is(err, errors.New(string(e.Code))))
		})
	}
}

func TestErrorMessage(t *testing.T) {
	for name, err := range producedErrors(t) {
		t.Run(name, func(t *testing.T) {
			var e *Error
			require.ErrorAs(t, err, &e)
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, "toolname: "+string(e.Code)+": "), msg)
			assert.NotContains(t, msg, "\n")
			if e.Code != CodeInvalidProfile && e.Input != "" {
				assert.Contains(t, msg, strconv.Quote(e.Input))
			}
		})
	}
	t.Run("nil", func(t *testing.T) {
		var e *Error
		assert.NotPanics(t, func() { _ = e.Error() })
		assert.False(t, e.Is(ErrInvalidKey))
	})
	t.Run("unknown code", func(t *testing.T) {
		e := &Error{Code: "other", Input: "x", Index: -1, Offset: -1}
		assert.True(t, strings.HasPrefix(e.Error(), "toolname: other: "))
	})
}

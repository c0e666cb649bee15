package errcode

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

type code string

var (
	errA  = errors.New("pkg: a")
	table = Table[code, int]{
		"a": {Sentinel: errA, Message: "m", Hint: "h"},
		"b": {Explain: func(n int) (string, string) { return "n is odd", "make it even" }},
	}
)

func TestTable(t *testing.T) {
	message, hint := table.Words("a", 0)
	assert.Equal(t, "m", message)
	assert.Equal(t, "h", hint)
	message, hint = table.Words("b", 3)
	assert.Equal(t, "n is odd", message)
	assert.Equal(t, "make it even", hint)
	message, hint = table.Words("c", 0)
	assert.Empty(t, message)
	assert.Empty(t, hint)
	assert.True(t, table.Sentinel("a") == errA)
	assert.Nil(t, table.Sentinel("b"))
	assert.Nil(t, table.Sentinel("c"))
}

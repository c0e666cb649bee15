package errcode

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type code string

var errA = New("pkg", code("a"))

func TestSentinel(t *testing.T) {
	assert.Equal(t, "pkg: a", errA.Error())
	assert.True(t, Sentinel("pkg", code("a")) == errA)
	assert.Nil(t, Sentinel("pkg", code("b")))
	assert.Nil(t, Sentinel("other", code("a")))
}

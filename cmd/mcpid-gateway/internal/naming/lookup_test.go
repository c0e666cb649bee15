package naming

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestMisses: a miss is remembered for missTTL, the store's failure makes
// every name miss for missTTL, clear forgets both, and the memory is
// bounded.
func TestMisses(t *testing.T) {
	var m misses
	now := time.Now()
	assert.False(t, m.missed("a", now))
	m.miss("a", now)
	assert.True(t, m.missed("a", now.Add(missTTL-time.Millisecond)))
	assert.False(t, m.missed("a", now.Add(missTTL)), "forgotten after missTTL")
	assert.False(t, m.missed("b", now))

	m.storeFailed(now)
	assert.True(t, m.missed("b", now.Add(missTTL-time.Millisecond)), "every name misses while the store failed")
	assert.False(t, m.missed("b", now.Add(missTTL)))

	m.miss("a", now)
	m.storeFailed(now)
	m.clear()
	assert.False(t, m.missed("a", now))
	assert.False(t, m.missed("b", now))

	for i := range maxMisses + 1 {
		m.miss(string(rune('a'+i%26))+time.Duration(i).String(), now)
	}
	assert.LessOrEqual(t, len(m.names), maxMisses)
}

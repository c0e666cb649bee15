package previewcheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// recorder is a testing.TB that records a failure instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(string, ...any) { r.failed = true }

// TestCheckLooks: the checker fails a preview that shows two different
// ids alike, and passes one that shows them apart.
func TestCheckLooks(t *testing.T) {
	ids := []string{"s:\u00e9", "s:e\u0301"}
	r := &recorder{TB: t}
	checkLooks(r, ids, []string{"s:\u00e9", "s:e\u0301"}, "")
	assert.True(t, r.failed, "bare NFD beside NFC")
	r = &recorder{TB: t}
	checkLooks(r, ids, []string{"s:\u00e9", `"s:e\u0301"`}, "")
	assert.False(t, r.failed, "NFD quoted with its mark escaped")
}

// TestCheckNoNeedlessEscapes: the checker fails a literal that escapes
// what JSON needs not escape, and passes an escaped backslash before the
// same letters.
func TestCheckNoNeedlessEscapes(t *testing.T) {
	for lit, fails := range map[string]bool{
		`"a\u2028b"`: true, `"\u003cb\u003e"`: true, `"\u0026"`: true,
		"\"<b>&\u2028\"": false, `"\\u2028"`: false, `"\n\u0001\u2027"`: false,
	} {
		r := &recorder{TB: t}
		checkNoNeedlessEscapes(r, lit, "")
		assert.Equal(t, fails, r.failed, lit)
	}
}

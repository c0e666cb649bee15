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

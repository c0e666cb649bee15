package idlook

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLook: pairs a person cannot tell apart bare have one Look, and the
// forms ShownID gives them do not; pairs the rule does not cover (within
// one script) keep apart anyway or are left alone.
func TestLook(t *testing.T) {
	tests := []struct {
		name         string
		a, b         string
		shownA       string
		shownB       string
		sameWhenBare bool
	}{
		{"NFC and NFD", "s:\u00e9", "s:e\u0301", "s:\u00e9", `"s:e\u0301"`, true},
		{"Kelvin sign", "K", "\u212a", "K", `"\u212a"`, true},
		{"Angstrom sign", "\u00c5", "\u212b", "\u00c5", `"\u212b"`, true},
		{"Latin and Cyrillic a", "a", "\u0430", "a", `"\u0430"`, true},
		{"paypal", "paypal", "p\u0430ypal", "paypal", `"p\u0430ypal"`, true},
		{"Cyrillic word of look-alikes", "cop", "\u0441\u043e\u0440", "cop", `"\u0441\u043e\u0440"`, true},
		{"Greek in a Latin word", "abc", "\u03b1bc", "abc", `"\u03b1bc"`, true},
		{"Greek and Cyrillic in one word", "x\u03bb\u0436", "x\u03bb\u0436", `"x\u03bb\u0436"`, `"x\u03bb\u0436"`, true},
		{"invisible rune", "ab", "a\u034fb", "ab", `"a\u034fb"`, true},
		{"Han", "\u65e5\u672c", "\u65e5\u672c", "\u65e5\u672c", "\u65e5\u672c", true},
		{"Hangul", "\ud55c\uad6d\uc5b4", "\ud55c\uad6d\uc5b4", "\ud55c\uad6d\uc5b4", "\ud55c\uad6d\uc5b4", true},
		{"Latin with Han", "abc\u65e5", "abc\u65e5", "abc\u65e5", "abc\u65e5", true},
		{"Cyrillic word with a letter without look-alike", "\u0436\u0430\u0440\u0430", "\u0436\u0430\u0440\u0430", "\u0436\u0430\u0440\u0430", "\u0436\u0430\u0440\u0430", true},
		{"within Latin, not covered", "l", "I", "l", "I", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.sameWhenBare, Look(tt.a) == Look(tt.b), "bare")
			assert.Equal(t, tt.shownA, ShownID(tt.a))
			assert.Equal(t, tt.shownB, ShownID(tt.b))
			if tt.a != tt.b {
				assert.NotEqual(t, Look(ShownID(tt.a)), Look(ShownID(tt.b)), "shown")
			}
		})
	}
}

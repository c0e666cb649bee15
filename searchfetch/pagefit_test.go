package searchfetch_test

import (
	"strconv"
	"strings"
)

// padCursor returns the cursor of page n padded on the left with 'x' to
// pad bytes: a backend whose cursors are as long as the tools carry (256
// bytes).
func padCursor(n, pad int) string {
	s := strconv.Itoa(n)
	return strings.Repeat("x", max(0, pad-len(s))) + s
}

// narrowAdvice is the line that ends a page whose caller has hits that no
// cursor reaches.
const narrowAdvice = "More hits may exist than pages reach: call search with a narrower query."

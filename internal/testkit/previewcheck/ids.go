package previewcheck

import (
	"testing"
	"unicode/utf8"

	"github.com/mcpid/mcpid/internal/testkit/idlook"
)

// checkLooks checks that no two different ids among ids, shown as shown,
// look the same.
func checkLooks(t testing.TB, ids, shown []string, out string) {
	t.Helper()
	seen := make(map[string]string, len(ids))
	for i, s := range shown {
		l := idlook.Look(s)
		if prev, ok := seen[l]; ok && prev != ids[i] {
			t.Fatalf("ids %+q and %+q look the same, shown as %s:\n%s", prev, ids[i], s, out)
		}
		seen[l] = ids[i]
	}
}

// checkShownID checks that the valid UTF-8 id is shown as shown, where
// quoted says whether it must be a literal (the JSON form).
func checkShownID(t testing.TB, id, shown string, quoted bool, where string) {
	t.Helper()
	if !utf8.ValidString(id) {
		t.Fatalf("id %q is not valid UTF-8 in %q", id, where)
	}
	want := idlook.ShownID(id)
	if quoted {
		want = idlook.QuoteID(id)
	}
	if shown != want {
		t.Fatalf("id %+q shown as %s, want %s in %q", id, shown, want, where)
	}
}

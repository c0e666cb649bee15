package fuzz

import (
	"errors"
	"testing"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/idcases"
)

// FuzzSeal checks that every id opens from its seal, and that whatever
// opens is exactly the seal of what it opens to: no other string, however
// close to a sealed id, opens.
func FuzzSeal(f *testing.F) {
	s, err := mcpid.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		f.Fatal(err)
	}
	for _, tc := range idcases.Cases() {
		f.Add(tc.ID, s.Seal(tc.ID))
	}
	f.Add("cin_4f2a/orders:o12", "cin_4f2a/orders:o13~0000000")
	f.Add("a~b", "a~b~")
	f.Fuzz(func(t *testing.T, id, other string) {
		sealed := s.Seal(id)
		if got, err := s.Open(sealed); err != nil || got != id {
			t.Fatalf("Open(Seal(%q)) = %q, %v", id, got, err)
		}
		got, err := s.Open(other)
		if err != nil {
			if !errors.Is(err, mcpid.ErrUnknownID) {
				t.Fatalf("Open(%q) error %v is not unknown_id", other, err)
			}
			return
		}
		if s.Seal(got) != other {
			t.Fatalf("Open(%q) = %q, whose seal is %q", other, got, s.Seal(got))
		}
	})
}

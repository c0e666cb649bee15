package mcpid

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/idcases"
)

var (
	testKey    = []byte("0123456789abcdef0123456789abcdef")
	testOldKey = []byte("fedcba9876543210fedcba9876543210")
)

func testSealer(t testing.TB, keys ...[]byte) *Sealer {
	t.Helper()
	s, err := NewSealer(keys...)
	require.NoError(t, err)
	return s
}

// sealCorpus returns real-world ids as a search shows them: base ids of
// every shape in the connections sources use, and the valid ids of the
// shared table.
func sealCorpus() []string {
	bases := []string{
		"orders:o12", "orders:o13", "octo/repo#42", "https://www.notion.so/Roadmap-4f2a9c1e?pvs=4", "PROJ-17",
		"<CAF=x+1@mail.example.com>", "reports/Q3 summary.pdf", `C:\Users\ana\notes.txt`, "文档:第一章",
		"0065g00000XyZabAAF", "tickets:T-1017", "a~b", "~", strings.Repeat("k", 180),
	}
	conns := []string{"cin_4f2a", "projects/p1/connections/c2", "drive:team", "reports"}
	var ids []string
	for _, c := range conns {
		for _, b := range bases {
			id, _ := SelfContainedID(b, c)
			ids = append(ids, id)
		}
	}
	for _, tc := range idcases.Cases() {
		if tc.OK && len(tc.ID) <= 256 {
			ids = append(ids, tc.ID)
		}
	}
	return ids
}

func TestSealOpen(t *testing.T) {
	s := testSealer(t, testKey)
	for _, id := range append(sealCorpus(), "", "x~y~z") {
		sealed := s.Seal(id)
		require.Equal(t, len(id)+1+SealTagLen, len(sealed))
		require.True(t, strings.HasPrefix(sealed, id+"~"), sealed)
		for _, c := range sealed[len(id)+1:] {
			require.True(t, strings.ContainsRune(sealAlphabet, c), "tag character %q", c)
		}
		got, err := s.Open(sealed)
		require.NoError(t, err)
		require.Equal(t, id, got)
		assert.Equal(t, sealed, string(s.AppendSeal(nil, id)), "Seal and AppendSeal agree")
	}
}

// TestSealMutations tries every single-character substitution, insertion,
// deletion, adjacent transposition and case flip of sealed real-world ids,
// and every proper prefix, and counts those that open: none may.
func TestSealMutations(t *testing.T) {
	s := testSealer(t, testKey)
	// The characters a mutation puts in: the tag's alphabet in both cases,
	// the handle's separators, '~' and a few non-ASCII ones.
	var chars []rune
	for _, c := range sealAlphabet + "ilou~/:%.-_ é文" {
		chars = append(chars, c)
		if u := unicode.ToUpper(c); u != c {
			chars = append(chars, u)
		}
	}
	tried, opened := 0, 0
	try := func(sealed, mutant string) {
		if mutant == sealed {
			return
		}
		tried++
		if _, err := s.Open(mutant); err == nil {
			opened++
			t.Errorf("the mutant %q of %q opens", mutant, sealed)
		} else {
			require.ErrorIs(t, err, ErrUnknownID)
		}
	}
	for _, id := range sealCorpus() {
		sealed := s.Seal(id)
		for i := 0; i <= len(sealed); i++ {
			if i < len(sealed) && !utf8.RuneStart(sealed[i]) {
				continue
			}
			_, size := utf8.DecodeRuneInString(sealed[i:])
			for _, c := range chars {
				try(sealed, sealed[:i]+string(c)+sealed[i:]) // insertion
				if i < len(sealed) {
					try(sealed, sealed[:i]+string(c)+sealed[i+size:]) // substitution
				}
			}
			if i == len(sealed) {
				continue
			}
			try(sealed, sealed[:i]+sealed[i+size:]) // deletion
			try(sealed, sealed[:i])                 // proper prefix
			r, _ := utf8.DecodeRuneInString(sealed[i:])
			if f := flipCase(r); f != r {
				try(sealed, sealed[:i]+string(f)+sealed[i+size:]) // case flip
			}
			if j := i + size; j < len(sealed) {
				_, next := utf8.DecodeRuneInString(sealed[j:])
				try(sealed, sealed[:i]+sealed[j:j+next]+sealed[i:j]+sealed[j+next:]) // transposition
			}
		}
	}
	t.Logf("%d mutations tried, %d opened", tried, opened)
	require.GreaterOrEqual(t, tried, 1_000_000)
	require.Zero(t, opened)
}

// flipCase returns r in the other case, or r.
func flipCase(r rune) rune {
	if u := unicode.ToUpper(r); u != r {
		return u
	}
	return unicode.ToLower(r)
}

func TestSealKeys(t *testing.T) {
	_, err := NewSealer()
	require.Error(t, err)
	_, err = NewSealer(testKey, testKey[:15])
	require.ErrorContains(t, err, "at least 16 bytes")

	old := testSealer(t, testOldKey)
	rotated := testSealer(t, testKey, testOldKey)
	fresh := testSealer(t, testKey)
	id := "cin_4f2a/orders:o12"

	// The first key seals; every key opens.
	assert.Equal(t, fresh.Seal(id), rotated.Seal(id))
	assert.NotEqual(t, old.Seal(id), rotated.Seal(id))
	got, err := rotated.Open(old.Seal(id))
	require.NoError(t, err)
	assert.Equal(t, id, got)
	_, err = fresh.Open(old.Seal(id))
	require.ErrorIs(t, err, ErrUnknownID)

	// The key is copied.
	key := append([]byte(nil), testKey...)
	s := testSealer(t, key)
	sealed := s.Seal(id)
	key[0] ^= 1
	assert.Equal(t, sealed, s.Seal(id))
}

func TestOpenUnknown(t *testing.T) {
	s := testSealer(t, testKey)
	for _, sealed := range []string{"", "cin_4f2a/orders:o12", "cin_4f2a/orders:o12~", "x~abcdefgh", "x~abcdef", "x~ABCDEFG", "~~~~~~~~"} {
		_, err := s.Open(sealed)
		var e *Error
		require.ErrorAs(t, err, &e, sealed)
		assert.Equal(t, CodeUnknownID, e.Code)
		assert.Equal(t, FieldID, e.Field)
		assert.Equal(t, sealed, e.Input)
		assert.Equal(t, -1, e.Offset)
	}
}

func TestSealNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop states; make check runs this test without it")
	}
	s := testSealer(t, testKey)
	id := "projects%2Fp1%2Fconnections%2Fc2/:" + strings.Repeat("k", 160)
	sealed := s.Seal(id)
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = s.AppendSeal(buf[:0], id) }); n != 0 {
		t.Errorf("AppendSeal: %v allocs, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = s.Open(sealed) }); n != 0 {
		t.Errorf("Open: %v allocs, want 0", n)
	}
}

// TestSealedIDsInPreviews: '~' is an ordinary character, so a sealed id is
// shown bare and read back whole.
func TestSealedIDsInPreviews(t *testing.T) {
	s := testSealer(t, testKey)
	var hits []Hit
	var want []string
	for _, id := range sealCorpus()[:12] {
		sealed := s.Seal(id)
		hits = append(hits, Hit{ID: sealed, Title: "t"})
		want = append(want, sealed)
	}
	for _, format := range []Format{FormatText, FormatJSON} {
		text := RenderPreview(hits, PreviewOptions{Budget: 1 << 16, MaxHits: 100, Format: format})
		assert.Equal(t, want, ExtractIDs(text))
	}
	text := RenderPreview(hits[:1], PreviewOptions{})
	assert.Contains(t, text, "1. id="+want[0]+" ", "shown bare")
}

func BenchmarkSeal(b *testing.B) {
	s := testSealer(b, testKey)
	for _, n := range []int{20, 64, 200} {
		id := "cin_4f2a/orders:" + strings.Repeat("o", n-16)
		sealed := s.Seal(id)
		buf := make([]byte, 0, n+16)
		b.Run("AppendSeal/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			for b.Loop() {
				buf = s.AppendSeal(buf[:0], id)
			}
		})
		b.Run("Open/"+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(n))
			for b.Loop() {
				if _, err := s.Open(sealed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSealerZero: a Sealer with no key, the zero value or a nil pointer,
// seals nothing and opens nothing, and never panics.
func TestSealerZero(t *testing.T) {
	sealed := testSealer(t, testKey).Seal("c1/orders:o1")
	for name, s := range map[string]*Sealer{"zero": {}, "nil": nil} {
		t.Run(name, func(t *testing.T) {
			for _, id := range []string{"c1/orders:o1", "", "a~b", sealed} {
				assert.Equal(t, id, s.Seal(id))
				assert.Equal(t, "x"+id, string(s.AppendSeal([]byte("x"), id)))
				got, err := s.Open(id)
				require.ErrorIs(t, err, ErrUnknownID, "%q", id)
				assert.Empty(t, got)
				var e *Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, id, e.Input)
			}
		})
	}
}

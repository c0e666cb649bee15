package searchfetch

import (
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// integerSlow is the reference of argScanner.integer: the exact value of
// num as a rational, an integer when its denominator is 1. ok is false
// where integer must refuse: not a JSON number, an exponent beyond
// ±maxExponent, a fraction, or a negative value.
func integerSlow(num string) (digits string, ok bool) {
	if !json.Valid([]byte(num)) || strings.ContainsAny(num[:1], `"tfn{[`) {
		return "", false
	}
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		var e big.Int
		e.SetString(strings.TrimPrefix(num[i+1:], "+"), 10)
		if e.CmpAbs(big.NewInt(maxExponent)) > 0 {
			return "", false
		}
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok || !r.IsInt() || r.Sign() < 0 {
		return "", false
	}
	return r.Num().String(), true
}

// TestIntegerAgainstBig: integer takes exactly the JSON numbers whose
// exact value is a whole number that is not negative, as math/big reads
// them, with the same digits, over numbers built from random parts.
func TestIntegerAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	parts := [][]string{
		{"", "", "-"},
		{"0", "1", "10", "123", "100000000000000000000", "9007199254740993", "", "00", "01"},
		{"", "", ".0", ".5", ".000", ".0000000000000001", ".10", ".", ".x"},
		{"", "", "e0", "e1", "E+2", "e-1", "e-3", "e30", "e-30", "e31", "e-31", "e0030", "e99999999999999999999", "e", "e+", "e-0"},
		{"", "", "", "x", " "},
	}
	for range 20000 {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p[r.IntN(len(p))])
		}
		num := b.String()
		if strings.TrimSpace(num) == "" {
			continue
		}
		p := argScanner{s: []byte(num)}
		var got string
		err := p.integer("offset", "", false, &got)
		ok := err == nil && p.i == len(p.s)
		want, wantOK := integerSlow(num)
		if ok != wantOK || got != want && ok {
			t.Fatalf("integer(%q) = %q, %v (err %v); want %q, %v", num, got, ok, err, want, wantOK)
		}
	}
}

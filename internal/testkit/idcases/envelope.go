package idcases

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// CheckEnvelopeRoundTrip returns what is wrong with the JSON envelope of
// err, or nil: decode (a fresh value's UnmarshalJSON) must read it back
// into an error that marshals to the same bytes and that errors.Is still
// matches with sentinel, when the code has one.
func CheckEnvelopeRoundTrip(err error, decode func([]byte) (error, error), sentinel error) error {
	first, mErr := json.Marshal(err)
	if mErr != nil {
		return fmt.Errorf("marshal %v: %w", err, mErr)
	}
	back, dErr := decode(first)
	if dErr != nil {
		return fmt.Errorf("decode %s: %w", first, dErr)
	}
	second, mErr := json.Marshal(back)
	if mErr != nil {
		return fmt.Errorf("marshal decoded %s: %w", first, mErr)
	}
	if !bytes.Equal(first, second) {
		return fmt.Errorf("round trip changed the envelope:\n%s\n%s", first, second)
	}
	if sentinel != nil && (!errors.Is(err, sentinel) || !errors.Is(back, sentinel)) {
		return fmt.Errorf("errors.Is(%v) no longer matches after the round trip of %s", sentinel, first)
	}
	return nil
}

package mcpid

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// envelopeType is the type every envelope carries.
const envelopeType = "adapter_error"

// envelope is the JSON form of an *Error. Field order is the wire order.
type envelope struct {
	Type       string    `json:"type"`
	Code       Code      `json:"code"`
	Message    string    `json:"message"`
	Hint       string    `json:"hint,omitempty"`
	Retryable  bool      `json:"retryable,omitempty"`
	Field      string    `json:"field,omitempty"`
	Segment    string    `json:"segment,omitempty"`
	Offset     *int      `json:"offset,omitempty"`
	ID         *string   `json:"id,omitempty"`
	ConnID     *string   `json:"connection_id,omitempty"`
	Input      *string   `json:"input,omitempty"`
	Embedded   *string   `json:"embedded_connection_id,omitempty"`
	Available  *[]string `json:"available_connections,omitempty"`
	Omitted    int       `json:"available_connections_omitted,omitempty"`
	IDs        *[]string `json:"available_ids,omitempty"`
	IDsOmitted int       `json:"available_ids_omitted,omitempty"`
	RetryWith  string    `json:"retry_with,omitempty"`
}

// MarshalJSON returns the stable JSON envelope of e, for a tool error's
// structuredContent and text: {"type":"adapter_error","code":…,"message":…,
// "hint":…} and the fields that apply, in a fixed order.
func (e *Error) MarshalJSON() ([]byte, error) {
	if e == nil {
		return []byte("null"), nil
	}
	message, hint := e.words()
	env := envelope{
		Type:    envelopeType,
		Code:    Code(validText(string(e.Code))),
		Message: validText(message),
		Hint:    validText(hint),
		Field:   validText(e.Field),
		Segment: validText(e.Segment),
	}
	if e.Offset >= 0 {
		env.Offset = &e.Offset
	}
	env.Retryable = e.Code == CodeResourceUnavailable
	input := validText(e.Input)
	switch e.inputKey() {
	case FieldID:
		env.ID = &input
	case FieldConnectionID:
		env.ConnID = &input
	case inputKey:
		env.Input = &input
	}
	if e.Code == CodeConflictingConnectionID || e.Embedded != "" {
		embedded := validText(e.Embedded)
		env.Embedded = &embedded
	}
	if e.Code == CodeAmbiguousConnection || len(e.listed()) > 0 {
		shown := e.listed()
		omitted := e.omitted
		if n := len(shown); n > MaxAvailableConnections {
			shown = shown[:MaxAvailableConnections]
			omitted = addSat(omitted, n-MaxAvailableConnections)
		}
		shown = validTexts(shown)
		if e.AvailableIDs != nil {
			env.IDs, env.IDsOmitted, env.RetryWith = &shown, omitted, FieldID
		} else {
			env.Available, env.Omitted, env.RetryWith = &shown, omitted, FieldConnectionID
		}
		if e.Code != CodeAmbiguousConnection {
			env.RetryWith = ""
		}
	}
	// Without HTML escapes: JSON needs none, and each costs a model 6
	// bytes where '<' costs one (json.Marshal of an *Error escapes them
	// again).
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// validText returns s with each run of bytes that are not valid UTF-8
// replaced by U+FFFD, as JSON can only carry text; valid s, the usual
// case, is returned as is. (encoding/json would write \ufffd for each
// invalid byte, which decodes to a U+FFFD that it writes back raw: the
// bytes of a round trip would differ.)
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// validTexts returns ss, never nil, with validText applied to each; it
// copies ss only when one of them changes.
func validTexts(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	for i, s := range ss {
		if v := validText(s); v != s {
			out := append([]string(nil), ss...)
			for j := i; j < len(out); j++ {
				out[j] = validText(out[j])
			}
			return out
		}
	}
	return ss
}

// UnmarshalJSON reads an envelope that [Error.MarshalJSON] wrote back into e,
// so that a client branches on its Code with [errors.Is]; marshaling it again
// gives the same bytes. On error e is left unchanged.
func (e *Error) UnmarshalJSON(data []byte) error {
	var in struct {
		envelope
		Code *Code `json:"code"` // set when the envelope has a code, even ""
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return fmt.Errorf("mcpid: decoding an error envelope: %w", err)
	}
	env := in.envelope
	if env.Type != envelopeType || in.Code == nil {
		return fmt.Errorf("mcpid: not an error envelope: type %q; want type %q and a code", env.Type, envelopeType)
	}
	if env.Omitted < 0 || env.IDsOmitted < 0 {
		return fmt.Errorf("mcpid: not an error envelope: a negative count of omitted connections")
	}
	d := Error{
		Code:    *in.Code,
		Field:   env.Field,
		Segment: env.Segment,
		Offset:  -1,
		omitted: addSat(env.Omitted, env.IDsOmitted),
		text:    errorText{env.Message, env.Hint, true},
	}
	if env.Offset != nil {
		d.Offset = *env.Offset
	}
	switch {
	case env.ID != nil:
		d.Input = *env.ID
	case env.ConnID != nil:
		d.Input = *env.ConnID
	case env.Input != nil:
		d.Input = *env.Input
	}
	if env.Embedded != nil {
		d.Embedded = *env.Embedded
	}
	if env.Available != nil {
		d.Available = *env.Available
	}
	if env.IDs != nil {
		d.AvailableIDs = *env.IDs
	}
	*e = d
	return nil
}

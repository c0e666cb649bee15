package fuzz

import (
	"encoding/json"
	"testing"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/idcases"
	"github.com/mcpid/mcpid/internal/testkit/sentinel"
)

// decodeEnvelope is Error.UnmarshalJSON into a fresh value.
func decodeEnvelope(b []byte) (error, error) {
	var e mcpid.Error
	err := json.Unmarshal(b, &e)
	return &e, err
}

// FuzzErrorEnvelope decodes any JSON as an error envelope: what decodes
// round-trips byte for byte from then on, and still matches its sentinel;
// what does not decode is an error, never a panic.
func FuzzErrorEnvelope(f *testing.F) {
	f.Add(`{"type":"adapter_error","code":"invalid_id","message":"m","hint":"h","field":"id","segment":"record","offset":3,"id":"s:\u0000"}`)
	f.Add(`{"type":"adapter_error","code":"ambiguous_connection","message":"m","available_connections":["a","b"],"available_connections_omitted":7,"retry_with":"connection_id"}`)
	f.Add(`{"type":"adapter_error","code":"conflicting_connection_id","message":"","connection_id":"c2","embedded_connection_id":"c1"}`)
	f.Add("{\"type\":\"adapter_error\",\"code\":\"x\xff\",\"message\":\"\\ud800\"}")
	f.Add(`{"type":"adapter_error"}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, text string) {
		var e mcpid.Error
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			return
		}
		if err := idcases.CheckEnvelopeRoundTrip(&e, decodeEnvelope, sentinel.For(e.Code)); err != nil {
			t.Fatal(err)
		}
	})
}

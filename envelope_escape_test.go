package mcpid

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEnvelopeNoHTMLEscapes: MarshalJSON writes '<', '>' and '&' as they
// are, and the envelope decodes back to the same input; json.Marshal of
// an *Error escapes them again, as it does every Marshaler's output.
func TestEnvelopeNoHTMLEscapes(t *testing.T) {
	e := &Error{Code: CodeNotFound, Input: "a<b>&c", Offset: -1}
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `"input":"a<b>&c"`; !json.Valid(b) || !strings.Contains(string(b), want) {
		t.Errorf("MarshalJSON = %s, want it to hold %s", b, want)
	}
	var back Error
	if err := json.Unmarshal(b, &back); err != nil || back.Input != e.Input || back.Code != e.Code {
		t.Errorf("round trip: %v, %+v", err, back)
	}
	if b, _ := json.Marshal(e); !strings.Contains(string(b), `a\u003cb\u003e\u0026c`) {
		t.Errorf("json.Marshal = %s, want its HTML escapes", b)
	}
}

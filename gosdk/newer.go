package gosdk

import (
	"reflect"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The adapter builds on every go-sdk from its floor, the version its
// go.mod requires, to the newest: a server on an older SDK adopts the
// tools without go mod tidy moving it up. What later SDKs added is
// reached here, by reflection or an interface assertion, never by a
// second copy of a file; each use says what the floor does without it.

// setField sets the field name of the struct that ptr points to to v, and
// reports whether it did: false when the SDK at hand has no such field of
// v's type.
func setField(ptr any, name string, v any) bool {
	f := reflect.ValueOf(ptr).Elem().FieldByName(name)
	val := reflect.ValueOf(v)
	if !f.IsValid() || !f.CanSet() || !val.Type().AssignableTo(f.Type()) {
		return false
	}
	f.Set(val)
	return true
}

// setError marks res as an error and records err on it for the server's
// middleware, with [mcp.CallToolResult.SetError] where the SDK has it
// (v1.3.0 on); on an older SDK only IsError is set. SetError may write
// err's text into Content (it always does before v1.6.0): the caller sets
// Content after it.
func setError(res *mcp.CallToolResult, err error) {
	if s, ok := any(res).(interface{ SetError(error) }); ok {
		s.SetError(err)
		return
	}
	res.IsError = true
}

// noExpiration is the Expiration a verified caller without one carries
// through an SDK whose bearer-token middleware refuses a TokenInfo without
// an Expiration (before auth.RequireBearerTokenOptions had
// AllowMissingExpiration); callerOf turns it back into none. The caller's
// own Expiration, when it has one, is checked before the SDK sees the
// request.
var noExpiration = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

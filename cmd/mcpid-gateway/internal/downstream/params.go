package downstream

import (
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Params returns the params of req, or nil when it has none. The SDK gives
// a request sent without params (or with "params": null), as the official
// TypeScript client sends tools/list, prompts/list and ping, a nil pointer
// of its params type inside a non-nil [mcp.Params]: a method called on
// that value panics, so read a request's params through Params.
func Params(req mcp.Request) mcp.Params {
	p := req.GetParams()
	if p == nil {
		return nil
	}
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return p
}

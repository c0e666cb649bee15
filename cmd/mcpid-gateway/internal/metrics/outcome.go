package metrics

// Outcome is how a tools/call ended, the value of the outcome label of
// mcpid_gateway_calls_total. The set is closed: a downstream's own error
// codes never become outcomes, so that a hostile downstream cannot add
// series.
type Outcome string

// The outcomes of a tools/call.
const (
	// OK: the downstream answered with a result.
	OK Outcome = "ok"
	// ToolError: the downstream answered with a tool error of its own
	// (isError), whatever its content says.
	ToolError Outcome = "tool_error"
	// UnknownTool: the called name routes to no tool (unknown, or
	// ambiguous); such a call has server "".
	UnknownTool Outcome = "unknown_tool"
	// Unavailable: the downstream is not connected, ended the session
	// during the call, or has not listed its tools since the start.
	Unavailable Outcome = "unavailable"
	// Timeout: the downstream did not answer within the gateway's
	// timeout.
	Timeout Outcome = "timeout"
	// Error: any other failure: the downstream refused the call with a
	// JSON-RPC error, or the arguments were not a JSON object.
	Error Outcome = "error"
)

// outcomes are the values of the outcome label, in the order the
// documentation lists them.
var outcomes = []Outcome{OK, ToolError, UnknownTool, Unavailable, Timeout, Error}

// valid reports whether o is one of the outcomes.
func (o Outcome) valid() bool {
	for _, v := range outcomes {
		if o == v {
			return true
		}
	}
	return false
}

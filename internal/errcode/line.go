package errcode

import "strings"

// Line is the one-line text for logs that the module's errors share:
//
//	<pkg>: <code>: <message> (<input>, ...); <hint>
//
// leaving out the message, the parenthesis or the hint when empty.
func Line(pkg, code, message, hint string, inputs []string) string {
	line := pkg + ": " + code
	if message != "" {
		line += ": " + message
	}
	if len(inputs) > 0 {
		line += " (" + strings.Join(inputs, ", ") + ")"
	}
	if hint != "" {
		line += "; " + hint
	}
	return line
}

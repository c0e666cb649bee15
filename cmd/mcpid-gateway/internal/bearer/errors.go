package bearer

import (
	"fmt"
	"strings"
)

// Code says what is wrong with a tokens file. It is an error itself, so
// that errors.Is(err, CodeShortToken) tells one from another.
type Code int

// The codes of an [*Error].
const (
	CodeUnreadable  Code = iota + 1 // the file cannot be opened or read
	CodeOpenMode                    // others can read it, or others than its owner can write it
	CodeSyntax                      // a line is not USER TOKEN
	CodeUser                        // a user id is not valid UTF-8, or has a control character
	CodeTokenSyntax                 // a token has a character a bearer token cannot carry
	CodeShortToken                  // a token is shorter than MinTokenLen
	CodeDuplicate                   // a token is given twice
	CodeEmpty                       // the file holds no token
)

// codes are each code's message and hint: what is wrong, and the remedy.
var codes = map[Code]struct{ message, hint string }{
	CodeUnreadable:  {"cannot be read", ""},
	CodeOpenMode:    {"others can read it, or others than its owner can write it", "chmod 600 (or 640, for a group the gateway runs in)"},
	CodeSyntax:      {"want USER TOKEN: two fields separated by spaces", "a comment is a line of its own that starts with #"},
	CodeUser:        {"the user id is not valid UTF-8, or has a control character", ""},
	CodeTokenSyntax: {"the token has a character a bearer token cannot carry", "use letters, digits, - . _ ~ + / and a trailing =; make one with: openssl rand -hex 32"},
	CodeShortToken:  {fmt.Sprintf("the token is shorter than %d bytes", MinTokenLen), "make one with: openssl rand -hex 32"},
	CodeDuplicate:   {"a token is given twice", "give each token once; one user may have several"},
	CodeEmpty:       {"no token", "a line USER TOKEN for each caller"},
}

func (c Code) Error() string { return codes[c].message }

// Error is a tokens file that cannot be used: the file, the line (0 for
// the file as a whole) and what is wrong. Its message never holds a token
// or any part of the line that held one.
type Error struct {
	Path   string // "" when parsed from a reader
	Line   int
	Code   Code
	Detail string // more of what is wrong, never secret; may be ""
	Err    error  // the I/O error, for CodeUnreadable; nil otherwise
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("tokens file")
	if e.Path != "" {
		fmt.Fprintf(&b, " %q", e.Path)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d", e.Line)
	}
	b.WriteString(": ")
	b.WriteString(e.Code.Error())
	if e.Detail != "" {
		b.WriteString(" (" + e.Detail + ")")
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	if h := codes[e.Code].hint; h != "" {
		b.WriteString("; " + h)
	}
	return b.String()
}

// Unwrap returns e's code and, for CodeUnreadable, the I/O error.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Code, e.Err}
	}
	return []error{e.Code}
}

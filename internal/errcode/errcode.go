// Package errcode holds what the module's error packages share: the type
// of their table of codes.
package errcode

// Row is what an error package says of one of its codes: the sentinel that
// errors.Is matches, and the message and the hint of an error E with that
// code. Words that depend on the error come from Explain instead of
// Message and Hint.
type Row[E any] struct {
	Sentinel      error
	Message, Hint string
	Explain       func(E) (message, hint string)
}

// Table is an error package's table of codes, from which its errors'
// Message, Hint and Is read: adding a code is adding a row.
type Table[C ~string, E any] map[C]Row[E]

// Words returns the message and the hint the table has for err, whose
// code is code, or "" for a code it does not have.
func (t Table[C, E]) Words(code C, err E) (message, hint string) {
	r, ok := t[code]
	switch {
	case !ok:
		return "", ""
	case r.Explain != nil:
		return r.Explain(err)
	}
	return r.Message, r.Hint
}

// Sentinel returns the sentinel of code, or nil for a code the table
// does not have.
func (t Table[C, E]) Sentinel(code C) error { return t[code].Sentinel }

// others holds the sentinels of the codes that other packages of the module
// define beside the root package's table (searchfetch's invalid_arguments),
// so that the root's Error.Is matches them too. It is written only while
// packages initialize, by Register, and read after.
var others = map[string]error{}

// Register makes sentinel the sentinel of code for the root package's
// errors and returns it. Call it only to initialize a package-level
// variable.
func Register(code string, sentinel error) error {
	others[code] = sentinel
	return sentinel
}

// Other returns the sentinel that Register gave code, or nil.
func Other(code string) error { return others[code] }

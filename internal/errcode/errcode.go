// Package errcode makes the sentinel errors of the module's error
// packages and remembers them by code, so that tests outside a package
// (the fuzz targets, the adapters' shared checks) find a code's sentinel
// where the package itself made it, instead of in a copy of its table.
package errcode

import "errors"

// sentinels holds every sentinel New made, by its text. It is written
// only while packages initialize their variables, and read after.
var sentinels = map[string]error{}

// New returns a new sentinel error for code of the package whose errors
// start with prefix: its text is prefix + ": " + code. It records the
// sentinel for [Sentinel]. Call it only in a package-level variable's
// initializer.
func New[C ~string](prefix string, code C) error {
	text := prefix + ": " + string(code)
	err := errors.New(text)
	sentinels[text] = err
	return err
}

// Sentinel returns the sentinel New made for prefix and code, or nil.
func Sentinel[C ~string](prefix string, code C) error {
	return sentinels[prefix+": "+string(code)]
}

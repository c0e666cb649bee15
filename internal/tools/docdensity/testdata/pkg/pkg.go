// Package pkg is docdensity's fixture: the package doc is not counted.
package pkg

// F is counted: one line.
func F() {}

// f is not exported: not counted.
func f() {}

// T is counted with its exported field's comments: two lines here,
// and two more below.
type T struct {
	// A is exported.
	A int // and commented twice
	// b is not exported: not counted.
	b int
}

// M is a method of an exported type: one line.
func (T) M() {}

// m is not exported.
func (T) m() {}

type u struct{}

// M of an unexported type is not counted.
func (u) M() {}

// The group's doc counts once, toward its first exported spec.
const (
	// C1 is one line.
	C1 = 1
	c2 = 2
	C3 = 3
)

var V, w = 1, 2 // a spec with an exported name: counted, no doc lines

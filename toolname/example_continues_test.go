package toolname_test

import (
	"errors"
	"fmt"

	"github.com/mcpid/mcpid/toolname"
)

// A backup of generation 1 was restored, and a replica that started
// afterwards went on from it: its generation 2 gives delete_everything to
// another server's tool than the generation 2 the other replicas hold.
func ExampleTable_Continues() {
	list := toolname.Key{Server: "s1", Tool: "list"}
	gen1, _ := toolname.Assign(toolname.Portable, []toolname.Key{list})
	held, _ := toolname.Assign(toolname.Portable, []toolname.Key{list, {Server: "s2", Tool: "delete_everything"}}, toolname.WithPrevious(gen1))
	fork, _ := toolname.Assign(toolname.Portable, []toolname.Key{list, {Server: "s3", Tool: "delete_everything"}}, toolname.WithPrevious(gen1))

	_, heldGen := held.Chain()
	_, forkGen := fork.Chain()
	fmt.Println("generations:", heldGen, forkGen)
	err := fork.Continues(held)
	var e *toolname.Error
	if errors.As(err, &e) {
		fmt.Println(errors.Is(err, toolname.ErrRollback), e.Field, e.Input)
	}
	fmt.Println(held.Continues(gen1))
	// Output:
	// generations: 2 2
	// true name delete_everything
	// <nil>
}

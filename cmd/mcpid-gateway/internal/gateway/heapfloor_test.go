package gateway

import (
	"os"
	"runtime"
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHeapFloor: the heap the collector aims for is at least twice the
// floor once it is kept (the runtime's own goal for a heap of a few MB is
// 4 MB), and an operator's GOGC or GOMEMLIMIT leaves the collector alone.
func TestHeapFloor(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	assert.True(t, wantHeapFloor(env()))
	assert.False(t, wantHeapFloor(env("GOGC", "100")))
	assert.False(t, wantHeapFloor(env("GOMEMLIMIT", "512MiB")))

	if !wantHeapFloor(os.Getenv) {
		t.Skip("GOGC or GOMEMLIMIT is set: the floor is the operator's to choose")
	}
	keepHeapFloor()
	assert.Len(t, heapFloor, heapFloorBytes)
	runtime.GC() // the goal follows from the heap a collection marks
	goal := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(goal)
	assert.GreaterOrEqual(t, goal[0].Value.Uint64(), uint64(2*heapFloorBytes))
}

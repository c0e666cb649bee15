package gateway

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sink keeps the test's garbage from being optimised away.
var sink []byte

// TestHeapFloor: with the floor, 24 MB of short-lived garbage (the
// buffers of about 70 relayed calls) costs at most two collections (one,
// and one that another test's goroutines may start); with the runtime's
// own 4 MB floor and a heap of a few MB it cost six or more. An
// operator's GOGC or GOMEMLIMIT leaves the collector alone.
func TestHeapFloor(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		if _, set := os.LookupEnv(env); set {
			t.Skipf("%s is set: the floor is the operator's to choose", env)
		}
	}
	keepHeapFloor()
	require.Len(t, heapFloor, heapFloorBytes)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 24 {
		sink = make([]byte, 1<<20)
	}
	runtime.ReadMemStats(&after)
	assert.LessOrEqual(t, after.NumGC-before.NumGC, uint32(2))
}

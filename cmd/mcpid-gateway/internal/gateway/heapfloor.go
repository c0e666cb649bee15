package gateway

import (
	"os"
	"sync"
)

// heapFloorBytes is the heap the garbage collector counts as live beside
// the gateway's own (see keepHeapFloor).
const heapFloorBytes = 32 << 20

var (
	heapFloorOnce sync.Once
	// heapFloor is held for the process's life and never touched: the
	// collector counts it as live, its pages are never written, so it
	// costs address space, not memory, and it holds no pointers to scan.
	heapFloor []byte
)

// keepHeapFloor raises the heap at which the garbage collector runs to
// at least twice heapFloorBytes, unless the operator tuned the collector
// (GOGC or GOMEMLIMIT in the environment). A relayed call makes the
// SDK's two hops decode its messages into some 350 KB of short-lived
// buffers while the gateway's live heap is about 1 MB, so with the
// runtime's 4 MB floor it collected every few calls, and collection was
// the largest part of a call's CPU. The floor is heap the runtime counts
// but the process never writes; it shows in the Go heap metrics
// (go_memstats_heap_alloc_bytes), not in the resident memory.
func keepHeapFloor() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	heapFloorOnce.Do(func() { heapFloor = make([]byte, heapFloorBytes) })
}

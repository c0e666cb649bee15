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
	// heapFloor is held for the process's life and never written: the
	// collector counts it as live, but its pages are never touched, so it
	// takes address space, not memory, and it holds no pointers to scan.
	heapFloor []byte
)

// keepHeapFloor raises the heap at which the garbage collector runs to
// at least twice heapFloorBytes, unless the operator tuned the collector
// (see wantHeapFloor). A relayed call makes the SDK's two hops decode its
// messages into some 350 KB of short-lived buffers while the gateway's
// live heap is about 1 MB, so with the runtime's 4 MB floor it collected
// every few calls, and collection was the largest part of a call's CPU.
// The floor itself is never resident; what it costs is the garbage it
// lets build up between collections, up to about 32 MB more resident
// memory under load, and 32 MiB more in every Go heap metric.
func keepHeapFloor() {
	if wantHeapFloor(os.Getenv) {
		heapFloorOnce.Do(func() { heapFloor = make([]byte, heapFloorBytes) })
	}
}

// wantHeapFloor reports whether the environment, read with getenv, leaves
// the collector to the gateway: neither GOGC nor GOMEMLIMIT is set.
func wantHeapFloor(getenv func(string) string) bool {
	return getenv("GOGC") == "" && getenv("GOMEMLIMIT") == ""
}

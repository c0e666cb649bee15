//go:build !amd64 || purego

package mcpid

// vectorChunk is 0: there is no vector kernel.
const vectorChunk = 0

// chunk is the number of bytes scan reads a step.
const chunk = portableChunk

// classify is never called without a vector kernel. Were it called, it
// would class every byte as one to look at, which is always safe.
func (k *chunkClasses) classify(s string) { *k = chunkClasses{always: ^uint64(0)} }

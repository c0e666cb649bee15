//go:build !purego

package mcpid

// vectorChunk is the number of bytes the vector kernel reads at once.
const vectorChunk = 64

// chunk is the number of bytes scan reads a step: vectorChunk where the
// processor has AVX2, else the portable kernel's 8.
var chunk = portableChunk

func init() {
	if hasAVX2() {
		chunk = vectorChunk
	}
}

// hasAVX2 reports whether the processor and the operating system support
// AVX2.
func hasAVX2() bool

// classifyAVX2 is the vector kernel: it sets k to the classes of the bytes
// of s, 1 to 64 of them, as [chunkClasses.classify] describes them, but
// for the non-ASCII ones, which it only sorts by utf8Nibbles (cont, lead2
// and lead3 are 0 when hi is). It reads no byte outside the memory pages
// that s lies in.
//
//go:noescape
func classifyAVX2(s string, k *chunkClasses)

// classify sets k to the classes of the bytes of s, 1 to 64 of them.
func (k *chunkClasses) classify(s string) {
	classifyAVX2(s, k)
	if k.hi != 0 {
		lead := k.lead2 | k.lead3
		if k.hi == lead|k.cont && k.cont == lead<<1|k.lead3<<2 && lead>>63|k.lead3>>62 == 0 {
			k.always &^= k.hi
		}
	}
}

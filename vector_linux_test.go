package mcpid

import (
	"syscall"
	"testing"
	"unsafe"
)

// unsafeString is b as a string, where b lies: string(b) would copy it.
func unsafeString(b []byte) string { return unsafe.String(&b[0], len(b)) }

// TestVectorKernelPageEdges puts strings of 1 to 64 bytes against pages
// that cannot be read, before and after them: the kernel reads only the
// pages its string lies in, or the test dies of SIGSEGV.
func TestVectorKernelPageEdges(t *testing.T) {
	if chunk != vectorChunk {
		t.Skip("no vector kernel on this processor or build")
	}
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer syscall.Munmap(mem)
	for _, guard := range [][]byte{mem[:page], mem[2*page:]} {
		if err := syscall.Mprotect(guard, syscall.PROT_NONE); err != nil {
			t.Skip("mprotect:", err)
		}
	}
	mid := mem[page : 2*page]
	const fill = "a/é:文%2F.\\"
	for i := range mid {
		mid[i] = fill[i%len(fill)]
	}
	for n := 1; n <= 64; n++ {
		for _, b := range [][]byte{mid[:n], mid[page-n:]} {
			var k chunkClasses
			k.classify(unsafeString(b))
			if want := refClasses(string(b)); k != want {
				t.Fatalf("classify of %d bytes at a page edge = %+v, want %+v", n, k, want)
			}
		}
	}
}

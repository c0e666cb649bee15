//go:build !purego

#include "go_asm.h"
#include "textflag.h"

// func hasAVX2() bool
TEXT ·hasAVX2(SB), NOSPLIT, $0-1
	MOVL $0, AX
	CPUID
	CMPL AX, $7
	JLT  no
	MOVL $1, AX
	CPUID
	ANDL $0x18000000, CX // OSXSAVE and AVX
	CMPL CX, $0x18000000
	JNE  no
	MOVL $0, CX
	XGETBV               // the OS saves the XMM and YMM state
	ANDL $6, AX
	CMPL AX, $6
	JNE  no
	MOVL $7, AX
	MOVL $0, CX
	CPUID
	BTL  $5, BX          // AVX2
	JCC  no
	MOVB $1, ret+0(FP)
	RET

no:
	MOVB $0, ret+0(FP)
	RET

// NIBBLES puts the low nibbles of the bytes of x in lo and their high
// nibbles in hi. Y15 holds 0x0F in each byte.
#define NIBBLES(x, lo, hi) \
	VPAND     Y15, x, lo    \
	VPSRLW    $4, x, hi     \
	VPAND     Y15, hi, hi

// CLASSIFY classes the bytes of x by the tables of stopNibbles in Y12
// (low nibbles) and Y13 (high): AX gets the '%', BX the '.', DX the '/',
// R8 the ':', R9 the '\\', R10 the bytes of the classes in Y10 and R11
// the non-ASCII ones, bit k for byte k. Y14 is 0.
#define CLASSIFY(x, lo, hi, t1, t2) \
	VPSHUFB   lo, Y12, t1   \
	VPSHUFB   hi, Y13, t2   \
	VPAND     t1, t2, t1    \
	VPSLLW    $7, t1, t2    \
	VPMOVMSKB t2, AX        \
	VPSLLW    $6, t1, t2    \
	VPMOVMSKB t2, BX        \
	VPSLLW    $5, t1, t2    \
	VPMOVMSKB t2, DX        \
	VPSLLW    $4, t1, t2    \
	VPMOVMSKB t2, R8        \
	VPSLLW    $3, t1, t2    \
	VPMOVMSKB t2, R9        \
	VPAND     Y10, t1, t1   \
	VPCMPEQB  Y14, t1, t1   \
	VPMOVMSKB t1, R10       \
	NOTL      R10           \
	VPMOVMSKB x, R11

// UTF8 classes the non-ASCII bytes by the tables of utf8Nibbles in Y8
// (low nibbles) and Y9 (high): AX gets the continuation bytes (bit 7 of
// the class), BX the two-byte leads (bits 5 and 4) and DX the three-byte
// leads (bit 6).
#define UTF8(lo, hi, t1, t2) \
	VPSHUFB   lo, Y8, t1    \
	VPSHUFB   hi, Y9, t2    \
	VPAND     t1, t2, t1    \
	VPMOVMSKB t1, AX        \
	VPADDB    t1, t1, t2    \
	VPMOVMSKB t2, DX        \
	VPSLLW    $2, t1, t2    \
	VPMOVMSKB t2, BX        \
	VPSLLW    $3, t1, t2    \
	VPMOVMSKB t2, R8        \
	ORL       R8, BX

// func classifyAVX2(s string, k *chunkClasses)
TEXT ·classifyAVX2(SB), NOSPLIT, $0-24
	MOVQ      s_base+0(FP), SI
	MOVQ      s_len+8(FP), CX
	MOVQ      k+16(FP), DI
	MOVL      $0x0f0f0f0f, AX
	VMOVD     AX, X15
	VPBROADCASTD X15, Y15
	VPXOR     Y14, Y14, Y14
	VMOVDQU   ·stopNibbles+0(SB), Y12
	VMOVDQU   ·stopNibbles+32(SB), Y13
	MOVL      $const_alwaysClasses, AX
	VMOVD     AX, X10
	VPBROADCASTB X10, Y10
	CMPQ      CX, $32
	JLE       one

	// 33 to 64 bytes: the first 32, then the last 32, shifted to their
	// place; the bytes both read are classed alike.
	VMOVDQU   (SI), Y0
	VMOVDQU   -32(SI)(CX*1), Y3
	SUBQ      $32, CX
	NIBBLES(Y0, Y1, Y2)
	NIBBLES(Y3, Y4, Y5)
	CLASSIFY(Y0, Y1, Y2, Y6, Y7)
	MOVQ      AX, 0(DI)
	MOVQ      BX, 8(DI)
	MOVQ      DX, 16(DI)
	MOVQ      R8, 24(DI)
	MOVQ      R9, 32(DI)
	MOVQ      R10, 40(DI)
	MOVQ      R11, 48(DI)
	CLASSIFY(Y3, Y4, Y5, Y6, Y7)
	SHLQ      CX, AX
	SHLQ      CX, BX
	SHLQ      CX, DX
	SHLQ      CX, R8
	SHLQ      CX, R9
	SHLQ      CX, R10
	SHLQ      CX, R11
	ORQ       AX, 0(DI)
	ORQ       BX, 8(DI)
	ORQ       DX, 16(DI)
	ORQ       R8, 24(DI)
	ORQ       R9, 32(DI)
	ORQ       R10, 40(DI)
	ORQ       R11, 48(DI)
	MOVQ      48(DI), R11
	TESTQ     R11, R11
	JZ        ascii
	VMOVDQU   ·utf8Nibbles+0(SB), Y8
	VMOVDQU   ·utf8Nibbles+32(SB), Y9
	UTF8(Y1, Y2, Y6, Y7)
	MOVQ      AX, 56(DI)
	MOVQ      BX, 64(DI)
	MOVQ      DX, 72(DI)
	UTF8(Y4, Y5, Y6, Y7)
	SHLQ      CX, AX
	SHLQ      CX, BX
	SHLQ      CX, DX
	ORQ       AX, 56(DI)
	ORQ       BX, 64(DI)
	ORQ       DX, 72(DI)
	VZEROUPPER
	RET

one:
	// 1 to 32 bytes: the 32 from s when they lie in its page, else the
	// 32 that end where s ends, which lie in the page s starts in.
	MOVQ      SI, AX
	ANDQ      $4095, AX
	CMPQ      AX, $(4096-32)
	JA        back
	VMOVDQU   (SI), Y0
	MOVQ      $1, R12
	SHLQ      CX, R12
	DECQ      R12
	NIBBLES(Y0, Y1, Y2)
	CLASSIFY(Y0, Y1, Y2, Y6, Y7)
	ANDQ      R12, AX
	ANDQ      R12, BX
	ANDQ      R12, DX
	ANDQ      R12, R8
	ANDQ      R12, R9
	ANDQ      R12, R10
	ANDQ      R12, R11
	MOVQ      AX, 0(DI)
	MOVQ      BX, 8(DI)
	MOVQ      DX, 16(DI)
	MOVQ      R8, 24(DI)
	MOVQ      R9, 32(DI)
	MOVQ      R10, 40(DI)
	MOVQ      R11, 48(DI)
	TESTQ     R11, R11
	JZ        ascii
	VMOVDQU   ·utf8Nibbles+0(SB), Y8
	VMOVDQU   ·utf8Nibbles+32(SB), Y9
	UTF8(Y1, Y2, Y6, Y7)
	ANDQ      R12, AX
	ANDQ      R12, BX
	ANDQ      R12, DX
	MOVQ      AX, 56(DI)
	MOVQ      BX, 64(DI)
	MOVQ      DX, 72(DI)
	VZEROUPPER
	RET

back:
	VMOVDQU   -32(SI)(CX*1), Y0
	NEGQ      CX
	ADDQ      $32, CX
	NIBBLES(Y0, Y1, Y2)
	CLASSIFY(Y0, Y1, Y2, Y6, Y7)
	SHRL      CX, AX
	SHRL      CX, BX
	SHRL      CX, DX
	SHRL      CX, R8
	SHRL      CX, R9
	SHRL      CX, R10
	SHRL      CX, R11
	MOVQ      AX, 0(DI)
	MOVQ      BX, 8(DI)
	MOVQ      DX, 16(DI)
	MOVQ      R8, 24(DI)
	MOVQ      R9, 32(DI)
	MOVQ      R10, 40(DI)
	MOVQ      R11, 48(DI)
	TESTQ     R11, R11
	JZ        ascii
	VMOVDQU   ·utf8Nibbles+0(SB), Y8
	VMOVDQU   ·utf8Nibbles+32(SB), Y9
	UTF8(Y1, Y2, Y6, Y7)
	SHRL      CX, AX
	SHRL      CX, BX
	SHRL      CX, DX
	MOVQ      AX, 56(DI)
	MOVQ      BX, 64(DI)
	MOVQ      DX, 72(DI)
	VZEROUPPER
	RET

ascii:
	MOVQ      $0, 56(DI)
	MOVQ      $0, 64(DI)
	MOVQ      $0, 72(DI)
	VZEROUPPER
	RET

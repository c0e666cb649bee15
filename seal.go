package mcpid

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"hash"
	"strings"
	"sync"
)

// A Sealer appends a short HMAC tag to the ids a search shows (id "~" tag)
// and checks it at fetch, so that an id no search issued is an unknown_id
// error instead of a fetch of another record. It is integrity, not
// authorization, stateless, and safe for concurrent use; the zero Sealer
// seals and opens nothing. Use [NewSealer].
type Sealer struct {
	keys []sealKey
}

// sealKey is one key with a pool of HMAC states keyed with it.
type sealKey struct {
	pool *sync.Pool // of *sealState
}

// sealState is an HMAC state, room for its sum, and a buffer for the id.
type sealState struct {
	mac hash.Hash
	sum [sha256.Size]byte
	buf []byte
}

// SealTagLen is the number of characters of a seal's tag.
const SealTagLen = 7

// MinSealKeyLen is the fewest bytes a sealing key may have.
const MinSealKeyLen = 16

// sealSep separates an id from its tag.
const sealSep = '~'

// sealAlphabet is the tag's alphabet: 5 bits a character.
const sealAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// NewSealer returns a Sealer whose first key seals and whose every key
// opens. It is an error to give no key, or a key shorter than
// [MinSealKeyLen] bytes. The keys are copied.
func NewSealer(keys ...[]byte) (*Sealer, error) {
	if len(keys) == 0 {
		return nil, errors.New("mcpid: NewSealer needs at least one key")
	}
	s := &Sealer{keys: make([]sealKey, len(keys))}
	for i, k := range keys {
		if len(k) < MinSealKeyLen {
			return nil, errors.New("mcpid: a sealing key must have at least 16 bytes")
		}
		key := append([]byte(nil), k...)
		s.keys[i].pool = &sync.Pool{New: func() any {
			return &sealState{mac: hmac.New(sha256.New, key)}
		}}
	}
	return s, nil
}

// Seal returns id with its seal: id + "~" + tag. A Sealer with no key (the
// zero Sealer) returns id unsealed.
func (s *Sealer) Seal(id string) string {
	return string(s.AppendSeal(make([]byte, 0, len(id)+1+SealTagLen), id))
}

// AppendSeal appends id with its seal to dst and returns the extended
// buffer. It does not allocate when dst has room. A Sealer with no key (the
// zero Sealer) appends id unsealed.
func (s *Sealer) AppendSeal(dst []byte, id string) []byte {
	if s == nil || len(s.keys) == 0 {
		return append(dst, id...)
	}
	var tag [SealTagLen]byte
	s.keys[0].tag(&tag, id)
	dst = append(dst, id...)
	dst = append(dst, sealSep)
	return append(dst, tag[:]...)
}

// Open returns the id that sealed carries if its seal matches under one of
// the Sealer's keys. Anything else is an [*Error] with Code [CodeUnknownID].
func (s *Sealer) Open(sealed string) (string, error) {
	i := strings.LastIndexByte(sealed, sealSep)
	if s == nil || i < 0 || len(sealed)-i-1 != SealTagLen {
		return "", unknownID(sealed)
	}
	id, given := sealed[:i], sealed[i+1:]
	var want [SealTagLen]byte
	for _, k := range s.keys {
		k.tag(&want, id)
		if subtle.ConstantTimeCompare(want[:], []byte(given)) == 1 {
			return id, nil
		}
	}
	return "", unknownID(sealed)
}

// unknownID returns the unknown_id error of the id sealed.
func unknownID(sealed string) *Error {
	return &Error{Code: CodeUnknownID, Field: FieldID, Offset: -1, Input: sealed}
}

// tag writes the tag of id under k. The id is copied into the state's
// buffer, which the pool keeps, so that writing it to the HMAC does not
// allocate.
func (k sealKey) tag(tag *[SealTagLen]byte, id string) {
	st := k.pool.Get().(*sealState)
	st.buf = append(st.buf[:0], id...)
	st.mac.Reset()
	st.mac.Write(st.buf)
	sum := st.mac.Sum(st.sum[:0])
	// 35 bits: the first 5 bytes, 5 bits a character.
	bits := uint64(sum[0])<<32 | uint64(sum[1])<<24 | uint64(sum[2])<<16 | uint64(sum[3])<<8 | uint64(sum[4])
	for i := SealTagLen - 1; i >= 0; i-- {
		tag[i] = sealAlphabet[bits&31]
		bits >>= 5
	}
	if cap(st.buf) > maxSealBuf {
		st.buf = nil // a huge id is not kept alive by the pool
	}
	k.pool.Put(st)
}

// maxSealBuf is the largest id buffer a pooled state keeps.
const maxSealBuf = 4 << 10

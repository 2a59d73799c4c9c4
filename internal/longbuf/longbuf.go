// Package longbuf lends the buffers that long lines and entries grow, so that a stream holds
// one only while it collects such a line: a node has hundreds of streams, most lines are short,
// and a catch-up of files that each end in a long line must not hold one buffer per file.
package longbuf

import "sync"

// Keep is the largest buffer a stream keeps for its next line: enough for the usual lines
// without a lent one.
const Keep = 64 << 10

// lent holds the buffers given back (*[]byte); the garbage collector may drop them.
var lent sync.Pool

// Grow returns buf ready to take n more bytes: when that takes it past its capacity and past
// Keep, its bytes move into a lent buffer, if one is free (append grows that one further if
// need be).
func Grow(buf []byte, n int) []byte {
	if need := len(buf) + n; need <= cap(buf) || need <= Keep {
		return buf
	}
	b, ok := lent.Get().(*[]byte)
	if !ok {
		return buf
	}
	return append((*b)[:0], buf...)
}

// Reset empties buf for the next line; a buffer grown past Keep goes back to the lender.
func Reset(buf []byte) []byte {
	if cap(buf) <= Keep {
		return buf[:0]
	}
	b := buf[:0]
	lent.Put(&b)
	return nil
}

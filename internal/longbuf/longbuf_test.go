package longbuf

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A short buffer stays the stream's own; a long one is given back when its line ends, and a
// line that grows past Keep takes a lent one with the bytes collected so far.
func TestGrowAndReset(t *testing.T) {
	short := append(make([]byte, 0, 1024), "short"...)
	assert.Equal(t, cap(short), cap(Reset(short)), "a short buffer is kept")
	assert.Equal(t, &short[:1][0], &Grow(short, 100)[:1][0], "room enough: the same buffer")

	long := bytes.Repeat([]byte("x"), 2*Keep)
	assert.Nil(t, Reset(long), "a long buffer is given back")

	// The pool may have dropped it (a collection between Put and Get), so only what Grow
	// promises is checked: the bytes collected, and room for the rest once appended.
	collected := append(make([]byte, 0, Keep), bytes.Repeat([]byte("y"), Keep)...)
	grown := Grow(collected, Keep)
	assert.Equal(t, collected, grown[:len(collected)])
	grown = append(grown, bytes.Repeat([]byte("z"), Keep)...)
	assert.Len(t, grown, 2*Keep)
}

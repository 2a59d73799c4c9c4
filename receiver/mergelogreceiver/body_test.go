package mergelogreceiver

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestBodyInvalidUTF8DoesNotAllocateOnceWarm(t *testing.T) {
	p := bodyRules{validUTF8: true}
	text := []byte("a\xff\xfe\xfdb and some more text to copy")
	p.body(text)
	assert.True(t, utf8.ValidString(p.body(text)))
	// The arena allocates a chunk now and then; per body, nothing.
	assert.Less(t, testing.AllocsPerRun(1000, func() { p.body(text) }), 0.01)
}

package mergelogreceiver

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// The outputs are golang.org/x/text's UTF-8 decoder's, which file_log runs on each token: each
// ill-formed subsequence (its maximal valid prefix, or a single byte) becomes one U+FFFD.
func TestAppendValidUTF8LikeFileLog(t *testing.T) {
	const r = "\uFFFD"
	for _, tc := range []struct{ in, want string }{
		{"a\xff\xfe\xfdb", "a" + r + r + r + "b"},
		{"c\xc3d", "c" + r + "d"},
		{"e\xe2\x82f", "e" + r + "f"},
		{"\xe2\x82", r},
		{"\xf0\x9f\x98", r},
		{"\xf0\x9f\x98x", r + "x"},
		{"\xed\xa0\x80", r + r + r}, // a surrogate
		{"\xe0\x80\x80", r + r + r}, // overlong
		{"\xc0\xaf", r + r},
		{"\xf4\x90\x80\x80", r + r + r + r}, // beyond U+10FFFF
		{"\xf8\x88\x80\x80\x80", r + r + r + r + r},
		{"\x80\x80", r + r},
		{"\xe2(\xa1", r + "(" + r},
		{"\xf1\x80\x80\xe2\x82\xac", r + "€"},
		{"ok " + r + " é 😀", "ok " + r + " é 😀"},
	} {
		got := string(appendValidUTF8(nil, []byte(tc.in)))
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}

func TestBodyInvalidUTF8DoesNotAllocateOnceWarm(t *testing.T) {
	p := bodyRules{validUTF8: true}
	text := []byte("a\xff\xfe\xfdb and some more text to copy")
	p.body(text)
	assert.True(t, utf8.ValidString(p.body(text)))
	// The arena allocates a chunk now and then; per body, nothing.
	assert.Less(t, testing.AllocsPerRun(1000, func() { p.body(text) }), 0.01)
}

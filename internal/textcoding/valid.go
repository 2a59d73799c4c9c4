package textcoding

import "unicode/utf8"

// AppendValid appends src to dst with each ill-formed subsequence replaced by U+FFFD, the way
// golang.org/x/text's UTF-8 decoder does it for file_log (the W3C/Unicode "maximal subpart"
// practice): a byte that cannot start a sequence, or a continuation byte out of place, is one
// U+FFFD each (so "a\xff\xfe\xfdb" has three); a sequence cut short ("\xe2\x82" then not a
// continuation byte) is one U+FFFD for its valid prefix. bytes.ToValidUTF8 would give one U+FFFD
// for a whole run of invalid bytes, and utf8.DecodeRune one per byte of a cut sequence.
func AppendValid(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		if r, n := utf8.DecodeRune(src[i:]); r != utf8.RuneError || n > 1 {
			dst = append(dst, src[i:i+n]...)
			i += n
			continue
		}
		dst = append(dst, "\uFFFD"...)
		i += maximalSubpart(src[i:])
	}
	return dst
}

// maximalSubpart returns how many bytes at the start of s, which does not start with a valid
// sequence, form the longest prefix of one (at least 1): what one U+FFFD replaces.
func maximalSubpart(s []byte) int {
	c := s[0]
	var size int
	lo, hi := byte(0x80), byte(0xBF) // the range of the second byte
	switch {
	case c >= 0xC2 && c <= 0xDF:
		size = 2
	case c == 0xE0:
		size, lo = 3, 0xA0
	case c == 0xED:
		size, hi = 3, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		size = 3
	case c == 0xF0:
		size, lo = 4, 0x90
	case c == 0xF4:
		size, hi = 4, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		size = 4
	default:
		return 1 // not a starter: a continuation byte, 0xC0, 0xC1, 0xF5 and above
	}
	if len(s) < 2 || s[1] < lo || s[1] > hi {
		return 1
	}
	n := 2
	for n < size && n < len(s) && s[n] >= 0x80 && s[n] <= 0xBF {
		n++
	}
	return n // < size: s does not start with a valid sequence
}

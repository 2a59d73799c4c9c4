package linestart

import (
	"unicode"
	"unicode/utf8"
)

// byteSet is a set of bytes, one bit each.
type byteSet [4]uint64

func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }

func (s *byteSet) add(b byte) { s[b>>6] |= 1 << (b & 63) }

// addClass adds the first bytes of the UTF-8 encodings of the runes in ranges (lo, hi pairs).
// Within each encoding length the lead byte grows with the rune, so a range adds a run of bytes.
func addClass(ranges []rune, s *byteSet) {
	for i := 0; i < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for _, band := range [...]struct {
			lo, hi rune
			lead   func(rune) int
		}{
			{0, 0x7f, func(r rune) int { return int(r) }},
			{0x80, 0x7ff, func(r rune) int { return 0xc0 | int(r>>6) }},
			{0x800, 0xffff, func(r rune) int { return 0xe0 | int(r>>12) }},
			{0x10000, unicode.MaxRune, func(r rune) int { return 0xf0 | int(r>>18) }},
		} {
			a, b := max(lo, band.lo), min(hi, band.hi)
			for c := band.lead(a); a <= b && c <= band.lead(b); c++ {
				s.add(byte(c))
			}
		}
		if lo <= utf8.RuneError && utf8.RuneError <= hi {
			for c := 0x80; c <= 0xff; c++ {
				s.add(byte(c))
			}
		}
	}
}

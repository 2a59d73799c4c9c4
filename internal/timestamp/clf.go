package timestamp

import (
	"encoding/binary"
	"sync/atomic"
)

// parseCLF reads dd/Mon/yyyy:HH:MM:SS ±hhmm from b's start (the text after '['): fixed
// positions up to the seconds, so each field is a couple of byte operations. n is the length read.
//
//	10/Oct/2000:13:55:36 -0700
//	0123456789012345678901234 5
func parseCLF(b []byte, c *civil) (n int, ok bool) {
	if !clfShape(b) {
		return 0, false
	}
	c.day, c.month = num2(b, 0), month3(b[3], b[4], b[5])
	hi, lo := num2(b, 7), num2(b, 9)
	// num2 gives -1 for non-digits, which the comparisons reject with the range.
	if c.day < 1 || c.month == 0 || hi < 0 || lo < 0 {
		return 0, false
	}
	c.year = hi*100 + lo
	return parseCLFTime(b, c)
}

// clfShape checks the length and the separators at fixed positions up to the seconds.
func clfShape(b []byte) bool {
	return len(b) >= 26 && b[2] == '/' && b[6] == '/' && b[11] == ':' && b[14] == ':' && b[17] == ':'
}

// parseCLFTime reads the part after the date, from b[12] on: HH:MM:SS, a fraction, the offset.
func parseCLFTime(b []byte, c *civil) (n int, ok bool) {
	c.hour, c.min, c.sec = num2(b, 12), num2(b, 15), num2(b, 18)
	if uint(c.hour) > 23 || uint(c.min) > 59 || uint(c.sec) > 59 {
		return 0, false
	}
	i := 20
	if hasFraction(b, i) { // not Apache's default, but written by custom %{...}t formats
		c.nsec, i = fraction(b, i+1)
	}
	if i >= len(b) || b[i] != ' ' {
		return 0, false
	}
	for i++; i < len(b) && b[i] == ' '; i++ { // a run of spaces, as time.Parse takes it
	}
	if i+5 > len(b) {
		return 0, false
	}
	c.offset, ok = makeOffset(b[i], num2(b, i+1), num2(b, i+3), 0)
	c.hasOffset = true
	return i + 5, ok
}

// parseCLFInstant is Parse for CLF. The lines of one log share their date, so the date of the
// last valid timestamp is cached with its midnight: most lines then read only the time and the
// offset. The result is the same as parseCLF followed by instant.
func (p *Parser) parseCLFInstant(b []byte) (int64, bool) {
	if !clfShape(b) {
		return 0, false
	}
	var c civil
	midnight, hit := p.clfDate.lookup(b)
	if !hit {
		if _, ok := parseCLF(b, &c); !ok || c.day > daysIn(c.month, c.year) {
			return 0, false
		}
		midnight = daysFromCivil(c.year, c.month, c.day) * 86400
		p.clfDate.store(b, midnight)
	} else if _, ok := parseCLFTime(b, &c); !ok {
		return 0, false
	}
	return unixNano(midnight+int64(c.hour*3600+c.min*60+c.sec-c.offset), c.nsec)
}

// dateCache remembers one CLF date text (dd/Mon/yyyy, 11 bytes) and its midnight in Unix
// seconds, as if UTC. It is a sequence lock over atomics, so that a Parser stays safe for
// concurrent use without a mutex or an allocation per change: a reader that overlaps a store
// sees the sequence move and misses. Goroutines reading logs with different dates through one
// Parser only miss more often. The zero value is empty: a key of zero bytes never matches a
// text that passed clfShape, whose byte 2 is '/'.
type dateCache struct {
	seq      atomic.Uint64 // odd while a store is in progress
	lo       atomic.Uint64 // date bytes 0-7
	hi       atomic.Uint32 // date bytes 7-10
	midnight atomic.Int64
}

func (d *dateCache) lookup(b []byte) (int64, bool) {
	s := d.seq.Load()
	if s&1 != 0 || d.lo.Load() != binary.LittleEndian.Uint64(b) || d.hi.Load() != binary.LittleEndian.Uint32(b[7:]) {
		return 0, false
	}
	m := d.midnight.Load()
	return m, d.seq.Load() == s
}

// store caches b's date; it gives up when another goroutine is storing.
func (d *dateCache) store(b []byte, midnight int64) {
	s := d.seq.Load()
	if s&1 != 0 || !d.seq.CompareAndSwap(s, s+1) {
		return
	}
	d.lo.Store(binary.LittleEndian.Uint64(b))
	d.hi.Store(binary.LittleEndian.Uint32(b[7:]))
	d.midnight.Store(midnight)
	d.seq.Store(s + 2)
}

// makeOffset builds seconds east of UTC from a sign and fields (-1 when not digits).
func makeOffset(sign byte, h, m, s int) (int, bool) {
	if h < 0 || uint(m) > 59 || uint(s) > 59 {
		return 0, false
	}
	off := h*3600 + m*60 + s
	if off > maxOffset {
		return 0, false
	}
	switch sign {
	case '+':
		return off, true
	case '-':
		return -off, true
	}
	return 0, false
}

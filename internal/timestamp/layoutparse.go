package timestamp

var (
	monthNames   = [...]string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
	weekdayNames = [...]string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
)

// parseLayout runs the ops over b. n is the length read.
func (p *Parser) parseLayout(b []byte, c *civil) (n int, ok bool) {
	year, ampm := -1, byte(0)
	i := 0
	for k := range p.ops {
		o := &p.ops[k]
		var v int
		switch o.kind {
		case opByte:
			if i >= len(b) || b[i] != o.lit[0] {
				return 0, false
			}
			i++
		case opLit:
			if len(b)-i < len(o.lit) || string(b[i:i+len(o.lit)]) != o.lit {
				return 0, false
			}
			i += len(o.lit)
		case opSpaces:
			if i < len(b) && b[i] != ' ' {
				return 0, false
			}
			for i < len(b) && b[i] == ' ' {
				i++
			}
		case opYear4, opYear4or2:
			if i+4 <= len(b) && num2(b, i) >= 0 && num2(b, i+2) >= 0 {
				year, i = num2(b, i)*100+num2(b, i+2), i+4
				break
			}
			if o.kind == opYear4 {
				return 0, false
			}
			fallthrough
		case opYear2:
			if i+2 > len(b) || num2(b, i) < 0 {
				return 0, false
			}
			year, i = 1900+num2(b, i), i+2
			if year < 1969 {
				year += 100
			}
		case opMonth, opMonthSpace:
			if o.kind == opMonthSpace && i < len(b) && b[i] == ' ' {
				i++
			}
			if v, i = num12(b, i); v < 1 || v > 12 {
				return 0, false
			}
			c.month = v
		case opMonthAbbr:
			if i+3 > len(b) {
				return 0, false
			}
			if c.month = month3(b[i], b[i+1], b[i+2]); c.month == 0 {
				return 0, false
			}
			i += 3
		case opMonthName:
			if v, i = lookup(b, i, monthNames[:]); v < 0 {
				return 0, false
			}
			c.month = v + 1
		case opDay, opDaySpace:
			if o.kind == opDaySpace && i < len(b) && b[i] == ' ' {
				i++
			}
			if v, i = num12(b, i); v < 1 || v > 31 {
				return 0, false
			}
			c.day = v
		case opWeekdayAbbr:
			if v, i = lookup3(b, i, weekdayNames[:]); v < 0 {
				return 0, false
			}
		case opWeekdayName:
			if v, i = lookup(b, i, weekdayNames[:]); v < 0 {
				return 0, false
			}
		case opHour:
			if v, i = num12(b, i); v < 0 || v > 23 {
				return 0, false
			}
			c.hour = v
		case opHour12:
			if v, i = num12(b, i); v < 1 || v > 12 {
				return 0, false
			}
			c.hour = v
		case opAMPM:
			if i+2 > len(b) || b[i+1]|0x20 != 'm' {
				return 0, false
			}
			if ampm = b[i] | 0x20; ampm != 'a' && ampm != 'p' {
				return 0, false
			}
			i += 2
		case opMinute:
			if v, i = num12(b, i); v < 0 || v > 59 {
				return 0, false
			}
			c.min = v
		case opSecond:
			if v, i = num12(b, i); v < 0 || v > 59 {
				return 0, false
			}
			c.sec = v
			if !o.fracNext && hasFraction(b, i) {
				c.nsec, i = fraction(b, i+1)
			}
		case opFraction:
			if hasFraction(b, i) {
				c.nsec, i = fraction(b, i+1)
			}
		case opOffset:
			if i < len(b) && b[i] == 'Z' {
				c.offset, i = 0, i+1
			} else if c.offset, i, ok = zoneOffset(b, i); !ok {
				return 0, false
			}
			c.hasOffset = true
		case opOffsetH, opOffsetHM, opOffsetHMS, opOffsetHMSNoColon:
			if c.offset, i, ok = fixedOffset(b, i, o.kind); !ok {
				return 0, false
			}
			c.hasOffset = true
		case opZoneName:
			if v, i = zoneName(b, i); v < 0 {
				return 0, false
			}
			if v == 0 && !c.hasOffset { // a numeric offset before the name wins
				c.hasOffset = true
			}
		}
	}
	switch ampm {
	case 'p':
		if c.hour < 12 {
			c.hour += 12
		}
	case 'a':
		if c.hour == 12 {
			c.hour = 0
		}
	}
	if year < 0 {
		year = p.guessYear(c.month)
	}
	c.year = year
	return i, true
}

// num12 reads one or two digits at b[i:], as time.Parse reads unpadded numbers: two when there
// are two. It returns -1 when there is no digit.
func num12(b []byte, i int) (v, end int) {
	if i >= len(b) || !isDigit(b[i]) {
		return -1, i
	}
	if i+1 < len(b) && isDigit(b[i+1]) {
		return int(b[i]-'0')*10 + int(b[i+1]-'0'), i + 2
	}
	return int(b[i] - '0'), i + 1
}

// lookup finds which of the lower-case names b[i:] starts with, in any case; -1 if none.
func lookup(b []byte, i int, names []string) (v, end int) {
	for k, name := range names {
		if hasPrefixFold(b[i:], name) {
			return k, i + len(name)
		}
	}
	return -1, i
}

// lookup3 is lookup for the three-letter abbreviations of names.
func lookup3(b []byte, i int, names []string) (v, end int) {
	for k, name := range names {
		if hasPrefixFold(b[i:], name[:3]) {
			return k, i + 3
		}
	}
	return -1, i
}

// hasPrefixFold reports whether b starts with the lower-case ASCII word s in any case.
func hasPrefixFold(b []byte, s string) bool {
	if len(b) < len(s) {
		return false
	}
	for k := 0; k < len(s); k++ {
		if b[k]|0x20 != s[k] {
			return false
		}
	}
	return true
}

// fixedOffset reads %i (±hh), %j (±hh:mm), %k (±hh:mm:ss) or %w (±hhmmss) at b[i:].
func fixedOffset(b []byte, i int, k opKind) (off, end int, ok bool) {
	var n int // length with the sign
	switch k {
	case opOffsetH:
		n = 3
	case opOffsetHM:
		n = 6
	case opOffsetHMS:
		n = 9
	default:
		n = 7
	}
	if i+n > len(b) {
		return 0, 0, false
	}
	h, m, s := num2(b, i+1), 0, 0
	switch k {
	case opOffsetHM, opOffsetHMS:
		if b[i+3] != ':' {
			return 0, 0, false
		}
		m = num2(b, i+4)
		if k == opOffsetHMS {
			if b[i+6] != ':' {
				return 0, 0, false
			}
			s = num2(b, i+7)
		}
	case opOffsetHMSNoColon:
		m, s = num2(b, i+3), num2(b, i+5)
	}
	off, ok = makeOffset(b[i], h, m, s)
	return off, i + n, ok
}

// zoneName reads a zone name of letters at b[i:]: v is 0 for a name of UTC (UTC, GMT, UT, Z), 1
// for another name of 2-5 letters, -1 otherwise.
func zoneName(b []byte, i int) (v, end int) {
	n := 0
	for i+n < len(b) && n <= 5 && (b[i+n]|0x20)-'a' < 26 {
		n++
	}
	name := b[i : i+n]
	switch {
	case n == 1 && name[0] == 'Z', n == 2 && hasPrefixFold(name, "ut"), n == 3 && (hasPrefixFold(name, "utc") || hasPrefixFold(name, "gmt")):
		return 0, i + n
	case n >= 2 && n <= 5:
		return 1, i + n
	}
	return -1, i
}

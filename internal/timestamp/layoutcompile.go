package timestamp

import (
	"errors"
	"fmt"
	"time"
)

type opKind uint8

const (
	opLit              opKind = iota // op.lit, byte for byte
	opByte                           // op.lit of one byte, the usual separator
	opSpaces                         // one or more spaces (none at the end of the text), as time.Parse
	opYear4                          // %Y
	opYear2                          // %y
	opYear4or2                       // the year of %D and %x
	opMonth                          // %m %q
	opMonthSpace                     // %o
	opMonthAbbr                      // %b %h
	opMonthName                      // %B
	opDay                            // %d %g
	opDaySpace                       // %e
	opWeekdayAbbr                    // %a
	opWeekdayName                    // %A
	opHour                           // %H
	opHour12                         // %I %l
	opAMPM                           // %p %P
	opMinute                         // %M
	opSecond                         // %S
	opFraction                       // [.,]%L %f %s
	opOffset                         // %z
	opOffsetH                        // %i
	opOffsetHM                       // %j
	opOffsetHMS                      // %k
	opOffsetHMSNoColon               // %w
	opZoneName                       // %Z
)

type op struct {
	kind opKind
	lit  string
	// fracNext marks an opSecond whose next field is a fraction: it leaves the fraction to it.
	// Otherwise a fraction after the seconds is read anyway, as time.Parse does.
	fracNext bool
}

// Fields a layout sets, for the checks in compileLayout.
const (
	hasMonth = 1 << iota
	hasDay
	hasHour24
	hasHour12
	hasAMPM
)

type compiler struct {
	ops    []op
	lit    []byte // literal text not yet emitted
	fields int
}

// compileLayout turns a strptime-style layout into ops, once, so that parsing is a loop over a
// slice.
func compileLayout(layout string) ([]op, error) {
	var c compiler
	if err := c.compile(layout); err != nil {
		return nil, err
	}
	c.flush()
	switch {
	case c.fields&hasMonth == 0:
		return nil, errors.New("no month (%m, %b, %B, %F, ...)")
	case c.fields&hasDay == 0:
		return nil, errors.New("no day of the month (%d, %e, %F, ...)")
	case c.fields&hasAMPM != 0 && c.fields&hasHour12 == 0:
		return nil, errors.New("%p without a 12-hour %I or %l")
	case c.fields&hasHour12 != 0 && c.fields&hasHour24 != 0:
		return nil, errors.New("both a 24-hour %H and a 12-hour %I or %l")
	}
	for i := range c.ops {
		if c.ops[i].kind != opSecond {
			continue
		}
		for _, next := range c.ops[i+1:] {
			if next.kind != opLit && next.kind != opByte && next.kind != opSpaces {
				c.ops[i].fracNext = next.kind == opFraction
				break
			}
		}
	}
	return c.ops, nil
}

func (c *compiler) compile(layout string) error {
	for i := 0; i < len(layout); i++ {
		if layout[i] != '%' {
			c.lit = append(c.lit, layout[i])
			continue
		}
		i++
		if i == len(layout) {
			return errors.New("ends with a lone '%'")
		}
		if err := c.directive(layout[i]); err != nil {
			return fmt.Errorf("%%%c at byte %d: %w", layout[i], i-1, err)
		}
	}
	return nil
}

func (c *compiler) directive(d byte) error {
	switch d {
	case 'Y':
		c.add(opYear4, 0)
	case 'y':
		c.add(opYear2, 0)
	case 'm', 'q':
		c.add(opMonth, hasMonth)
	case 'o':
		c.add(opMonthSpace, hasMonth)
	case 'b', 'h':
		c.add(opMonthAbbr, hasMonth)
	case 'B':
		c.add(opMonthName, hasMonth)
	case 'd', 'g':
		c.add(opDay, hasDay)
	case 'e':
		c.add(opDaySpace, hasDay)
	case 'a':
		c.add(opWeekdayAbbr, 0)
	case 'A':
		c.add(opWeekdayName, 0)
	case 'H':
		c.add(opHour, hasHour24)
	case 'I', 'l':
		c.add(opHour12, hasHour12)
	case 'p', 'P':
		c.add(opAMPM, hasAMPM)
	case 'M':
		c.add(opMinute, 0)
	case 'S':
		c.add(opSecond, 0)
	case 'L', 'f', 's':
		// As in filelog, the separator belongs to the fraction, so that the fraction is optional.
		if n := len(c.lit); n == 0 || (c.lit[n-1] != '.' && c.lit[n-1] != ',') {
			return errors.New("a fraction of a second must follow '.' or ','")
		}
		c.lit = c.lit[:len(c.lit)-1]
		c.add(opFraction, 0)
	case 'z':
		c.add(opOffset, 0)
	case 'i':
		c.add(opOffsetH, 0)
	case 'j':
		c.add(opOffsetHM, 0)
	case 'k':
		c.add(opOffsetHMS, 0)
	case 'w':
		c.add(opOffsetHMSNoColon, 0)
	case 'Z':
		c.add(opZoneName, 0)
	case 'n':
		c.lit = append(c.lit, '\n')
	case 't':
		c.lit = append(c.lit, '\t')
	case '%':
		c.lit = append(c.lit, '%')
	case 'D', 'x':
		c.add(opMonth, hasMonth)
		c.lit = append(c.lit, '/')
		c.add(opDay, hasDay)
		c.lit = append(c.lit, '/')
		c.add(opYear4or2, 0)
	case 'F':
		return c.compile("%Y-%m-%d")
	case 'T', 'X':
		return c.compile("%H:%M:%S")
	case 'R':
		return c.compile("%H:%M")
	case 'r':
		return c.compile("%I:%M:%S %p")
	case 'c':
		return c.compile("%a %b %e %H:%M:%S %Y")
	default:
		return errors.New("unknown directive")
	}
	return nil
}

func (c *compiler) add(k opKind, field int) {
	c.flush()
	c.ops = append(c.ops, op{kind: k})
	c.fields |= field
}

// flush emits the pending literal: runs of spaces apart, since they match any run of spaces.
func (c *compiler) flush() {
	for lit := c.lit; len(lit) > 0; {
		n := 0
		if lit[0] == ' ' {
			for n < len(lit) && lit[n] == ' ' {
				n++
			}
			c.ops = append(c.ops, op{kind: opSpaces})
		} else {
			for n < len(lit) && lit[n] != ' ' {
				n++
			}
			k := opLit
			if n == 1 {
				k = opByte
			}
			c.ops = append(c.ops, op{kind: k, lit: string(lit[:n])})
		}
		lit = lit[n:]
	}
	c.lit = c.lit[:0]
}

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

// guessYear gives a year-less timestamp the year of now in the location, or the year before
// when its month is more than one month ahead of now's (a December line read in January).
func (p *Parser) guessYear(month int) int {
	// Reading the clock costs more than parsing, and the answer changes only with now's month:
	// the month is cached with its bounds, and the clock read once every nowEvery calls.
	s := p.month.Load()
	if s == nil || p.calls.Add(1)%nowEvery == 0 {
		now := p.now()
		if sec := now.Unix(); s == nil || sec < s.from || sec >= s.until {
			loc := p.loc
			if loc == nil {
				loc = time.UTC
			}
			y, m, _ := now.In(loc).Date()
			first := time.Date(y, m, 1, 0, 0, 0, 0, loc)
			s = &monthSpan{from: first.Unix(), until: first.AddDate(0, 1, 0).Unix(), year: y, month: int(m)}
			p.month.Store(s)
		}
	}
	if month > s.month+1 {
		return s.year - 1
	}
	return s.year
}

const nowEvery = 256

// monthSpan is a month in Location and the Unix seconds [from, until) it spans.
type monthSpan struct {
	from, until int64
	year, month int
}

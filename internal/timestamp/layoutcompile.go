package timestamp

import (
	"errors"
	"fmt"
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

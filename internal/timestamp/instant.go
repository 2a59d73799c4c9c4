package timestamp

import "time"

// civil is a parsed timestamp. Parsers check each field's own range; instant checks the day
// against the month and year.
type civil struct {
	year, month, day int
	hour, min, sec   int
	nsec             int
	offset           int // seconds east of UTC, when hasOffset
	hasOffset        bool
}

const (
	maxOffset = 18 * 3600
	// Bounds of the seconds whose every nanosecond fits an int64; the two seconds just outside
	// fit in part and are checked exactly.
	minSafeSec = -9223372036
	maxSafeSec = 9223372035
)

func (p *Parser) instant(c *civil) (int64, bool) {
	if !c.hasOffset && p.loc != nil {
		sec, ok := c.wallSeconds()
		if !ok {
			return 0, false
		}
		return unixNano(p.wallToUTC(sec), c.nsec)
	}
	return c.instant()
}

// wallSeconds returns the seconds since 1970-01-01 00:00:00 of c's wall time, ignoring its
// offset; false for a day the month does not have.
func (c *civil) wallSeconds() (int64, bool) {
	if c.day > daysIn(c.month, c.year) {
		return 0, false
	}
	return daysFromCivil(c.year, c.month, c.day)*86400 + int64(c.hour*3600+c.min*60+c.sec), true
}

// instant is c's instant in Unix nanoseconds, taking its offset (none: UTC).
func (c *civil) instant() (int64, bool) {
	sec, ok := c.wallSeconds()
	if !ok {
		return 0, false
	}
	if c.hasOffset {
		sec -= int64(c.offset)
	}
	return unixNano(sec, c.nsec)
}

// unixNano converts Unix seconds and nanoseconds to Unix nanoseconds; false outside int64.
func unixNano(sec int64, ns int) (int64, bool) {
	nsec := int64(ns)
	if sec >= minSafeSec && sec <= maxSafeSec {
		return sec*1e9 + nsec, true
	}
	switch {
	case sec == maxSafeSec+1 && nsec <= 854775807:
		return sec*1e9 + nsec, true
	case sec == minSafeSec-1 && nsec >= 145224192:
		return (sec+1)*1e9 + (nsec - 1e9), true
	}
	return 0, false
}

// daysFromCivil is the day number of a proleptic Gregorian date, 0 at 1970-01-01 (Howard
// Hinnant, "chrono-Compatible Low-Level Date Algorithms"): years start in March so that the leap
// day ends the year, and 400-year eras repeat exactly. Our years are never negative; one era is
// added so that year 0's January stays positive and every division is an unsigned one.
func daysFromCivil(year, month, day int) int64 {
	y := uint(year) + 400
	if month <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400 // [0, 399]
	mp := uint(month) + 9
	if mp >= 12 {
		mp -= 12 // March = 0
	}
	doy := (153*mp+2)/5 + uint(day) - 1    // [0, 365]
	doe := yoe*365 + yoe/4 - yoe/100 + doy // [0, 146096]
	return int64(era)*146097 + int64(doe) - 719468 - 146097
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var monthDays = [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

func daysIn(m, y int) int {
	if m == 2 && isLeap(y) {
		return 29
	}
	return monthDays[m]
}

// zoneSpan is a period [start, end) of Unix seconds during which Location has one offset.
type zoneSpan struct {
	start, end, offset int64
}

// wallToUTC converts wall-clock seconds in Location (counted as if UTC) to Unix seconds, exactly
// as time.Date does: look up the offset in effect at the wall time read as UTC; if the result
// falls outside that offset's period, use the offset in effect at the result. The period is
// cached, so entries away from a zone change cost no lookup.
func (p *Parser) wallToUTC(wall int64) int64 {
	if z := p.zone.Load(); z != nil && wall >= z.start && wall < z.end {
		if utc := wall - z.offset; utc >= z.start && utc < z.end {
			return utc
		}
	}
	t := time.Unix(wall, 0).In(p.loc)
	_, off := t.Zone()
	start, end := t.ZoneBounds()
	z := &zoneSpan{start: -1 << 63, end: 1<<63 - 1, offset: int64(off)}
	if !start.IsZero() {
		z.start = start.Unix()
	}
	if !end.IsZero() {
		z.end = end.Unix()
	}
	p.zone.Store(z)
	utc := wall - z.offset
	if utc < z.start || utc >= z.end {
		_, off = time.Unix(utc, 0).In(p.loc).Zone()
		utc = wall - int64(off)
	}
	return utc
}
